/** The web app's API types are generated from the OpenAPI document; a stale copy fails here. */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { generate, OUTPUT } from "../../scripts/web-api-types.ts";

test("src/web/api/openapi-types.ts is what the OpenAPI document gives (else run `bun run web:types`)", () => {
  const committed = readFileSync(OUTPUT, "utf8");
  const fresh = generate();
  if (committed !== fresh) throw new Error("src/web/api/openapi-types.ts is stale: run `bun run web:types` and commit the result");
  expect(committed).toBe(fresh);
  // The same document always gives the same bytes.
  expect(generate()).toBe(fresh);
});
