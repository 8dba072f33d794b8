import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { expectError } from "./support.ts";

let server: TestServer;
let user: TestUser;
beforeAll(async () => {
  server = await startTestServer();
  user = await registerUser(server.url);
});
afterAll(() => server.close());

const count = (table: string) => server.services.db.query<{ n: number }, []>(`SELECT COUNT(*) AS n FROM ${table}`).get()!.n;

/** JSON bodies that are valid JSON but not an object. */
const NOT_OBJECTS: Array<[string, unknown]> = [
  ["null", null],
  ["an array", []],
  ["an array of an object", [{ name: "x" }]],
  ["a number", 42],
  ["a string", "name"],
  ["true", true],
];

describe("a JSON body that is not an object is a 400 naming body, and creates nothing", () => {
  test("API key creation: `null` does not mint a key with the default scopes", async () => {
    const before = count("api_keys");
    for (const [label, body] of NOT_OBJECTS) {
      const r = await user.client.post("/api/v1/api-keys", body);
      try {
        expectError(r, 400, "VALIDATION_ERROR");
        expect(r.body.details?.field).toBe("body");
      } catch (error) {
        throw new Error(`${label}: ${(error as Error).message}`);
      }
    }
    expect(count("api_keys")).toBe(before);
    // An absent body still means "all defaults", as before.
    const ok = await user.client.request("POST", "/api/v1/api-keys");
    expect(ok.status).toBe(201);
    expect(ok.body.scopes).toEqual(["read", "write", "delete"]);
    expect(count("api_keys")).toBe(before + 1);
  });

  test("registration, workspace creation and comments refuse them the same way", async () => {
    const users = count("users");
    const workspaces = count("workspaces");
    const comments = count("comments");
    for (const [label, body] of NOT_OBJECTS) {
      for (const [path, client] of [
        ["/api/auth/register", new Client(server.url)],
        ["/api/v1/workspaces", user.client],
        [`/api/v1/workspaces/${user.workspaceId}/comments`, user.client],
      ] as const) {
        const r = await client.post(path, body);
        try {
          expectError(r, 400, "VALIDATION_ERROR");
          expect(r.body.details?.field).toBe("body");
        } catch (error) {
          throw new Error(`${path} with ${label}: ${(error as Error).message}`);
        }
      }
    }
    expect(count("users")).toBe(users);
    expect(count("workspaces")).toBe(workspaces);
    expect(count("comments")).toBe(comments);
  });
});
