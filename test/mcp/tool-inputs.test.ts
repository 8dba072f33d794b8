/**
 * The MCP tools' inputs are the REST API's, reshaped only where the tool contract differs
 * (src/mcp/tool-inputs.ts): every other field advertises exactly the API's JSON Schema, and a
 * tool's page size stays within what the service accepts (it parses the arguments again).
 */
import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { listQuery } from "../../src/access/schemas.ts";
import { createCommentInput, listCommentsQuery } from "../../src/collab/comment-schemas.ts";
import { activityQuery } from "../../src/collab/schemas.ts";
import { searchQuery } from "../../src/search/schemas.ts";
import { activityArgs, addCommentArgs, listCommentsArgs, listWorkspacesArgs, searchArgs } from "../../src/mcp/tool-inputs.ts";

type Props = Record<string, Record<string, unknown>>;
const props = (schema: z.ZodType): Props => (z.toJSONSchema(schema, { io: "input" }) as { properties: Props }).properties;

describe("tool inputs derived from the API's", () => {
  const pairs: Array<[string, z.ZodType, z.ZodType, Record<string, string>]> = [
    ["quire_search", searchArgs, searchQuery, { query: "q" }],
    ["quire_list_workspaces", listWorkspacesArgs, listQuery, {}],
    ["quire_get_activity", activityArgs, activityQuery, {}],
    ["quire_list_comments", listCommentsArgs, listCommentsQuery, { path: "page" }],
    ["quire_add_comment", addCommentArgs, createCommentInput, { path: "page_path" }],
  ];

  for (const [tool, args, api, renamed] of pairs) {
    test(`${tool}: the fields it shares with the API are the API's, and its limit lies within the API's`, () => {
      const mine = props(args);
      const theirs = props(api);
      for (const [name, schema] of Object.entries(mine)) {
        const apiName = renamed[name] ?? name;
        expect(theirs[apiName], `${tool}.${name} has no API field`).toBeDefined();
        if (name === "limit") {
          expect(schema.type).toBe("integer");
          expect(schema.minimum).toBe(theirs.limit!.minimum);
          expect(schema.maximum as number).toBeLessThanOrEqual(theirs.limit!.maximum as number);
        } else if (name !== "path" && name !== "resolved") {
          // `path` (an agent's page path) and `resolved` (a JSON boolean) are the contract's own.
          expect(schema, `${tool}.${name}`).toEqual(theirs[apiName]!);
        }
      }
    });
  }
});
