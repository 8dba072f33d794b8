/**
 * GET /api/openapi.json documents every /api route the app registers, and is a valid OpenAPI 3.1
 * document. A route added without its line in src/http/openapi.ts fails here by name.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { createApp } from "../../src/app.ts";
import { API_ROUTES, routeCoverage, routeKey } from "../../src/http/openapi.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe("the OpenAPI document", () => {
  test("every /api route the app registers is in the route table (the failure names each missing one)", () => {
    const { missing, stale } = routeCoverage(createApp(server.services).routes);
    expect(missing, `routes missing from API_ROUTES in src/http/openapi.ts:\n${missing.join("\n")}`).toEqual([]);
    // And nothing documented that no longer exists.
    expect(stale, `entries of API_ROUTES with no route behind them:\n${stale.join("\n")}`).toEqual([]);
  });

  test("a route added without its line is reported as exactly its method and path", () => {
    const app = createApp(server.services)
      .get("/api/v1/workspaces/:id/new-report", () => ({}))
      .post("/api/v1/things/", () => ({}))
      .get("/p/not-api", () => "");
    expect(routeCoverage(app.routes)).toEqual({ missing: ["GET /api/v1/workspaces/:id/new-report", "POST /api/v1/things"], stale: [] });
    expect(routeKey("GET", "/api/v1/api-keys/")).toBe("GET /api/v1/api-keys");
  });

  test("is served publicly, is valid OpenAPI 3.1, and carries each route's input schema", async () => {
    const res = await new Client(server.url).get("/api/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    const doc = res.body;
    expect(doc.openapi).toBe("3.1.0");

    const validator = new Validator();
    const result = await validator.validate(doc);
    expect({ valid: result.valid, errors: result.errors }).toEqual({ valid: true, errors: undefined });

    const operations = Object.values(doc.paths as Record<string, Record<string, unknown>>).reduce((n, ops) => n + Object.keys(ops).length, 0);
    expect(operations).toBe(Object.keys(API_ROUTES).length);

    // Generated from the zod schemas the services validate with: required fields, limits, enums.
    const register = doc.paths["/api/auth/register"].post.requestBody.content["application/json"].schema;
    expect(register.required).toEqual(expect.arrayContaining(["name", "email", "password", "terms_accepted"]));
    const days = doc.paths["/api/v1/workspaces/{id}/analytics/pages"].get.parameters.find((p: { name: string }) => p.name === "days");
    expect(days.schema).toMatchObject({ minimum: 1, maximum: 90, default: 30 });
    const search = doc.paths["/api/v1/workspaces/{id}/search"].get.parameters.find((p: { name: string }) => p.name === "q");
    expect(search.required).toBe(true);
    const page = doc.paths["/api/v1/content/{workspace}/{path}"];
    expect(Object.keys(page).sort()).toEqual(["delete", "get", "patch", "post", "put"]);
    expect(page.post.requestBody.content["application/json"].schema.required).toContain("title");
    const hook = doc.paths["/api/v1/workspaces/{id}/webhooks"].post.requestBody.content["application/json"].schema;
    expect(hook.properties.url.maxLength).toBe(2048);
    expect(doc.paths["/api/v1/billing/plans"].get.summary).toContain("Cloud edition only");
  });
});
