import { describe, expect, test } from "bun:test";
import { allTools } from "../../src/mcp/server.ts";

/**
 * docs/decisions/mcp.md, "Scopes follow the annotation": a key with only `read` sees exactly the
 * tools annotated read-only, on both transports, so tools/list and the annotations never disagree.
 */
describe("a tool's scope and its readOnlyHint agree", () => {
  for (const transport of ["http", "stdio"] as const) {
    test(transport, () => {
      const tools = allTools(transport, true);
      expect(tools.length).toBeGreaterThan(10);
      for (const tool of tools) {
        // The admins' tools are listed only to admin keys, whatever their annotation (docs/decisions/mcp.md).
        if (tool.scope === "admin") continue;
        expect({ tool: tool.name, readOnly: tool.annotations.readOnlyHint === true }).toEqual({ tool: tool.name, readOnly: tool.scope === "read" });
      }
      expect(tools.filter((t) => t.scope === "admin").map((t) => t.name)).toEqual(["quire_get_access", "quire_set_access"]);
    });
  }

  test("quire_export: read-only (a download URL) over HTTP, a file written on this machine over stdio", () => {
    const over = (t: "http" | "stdio") => allTools(t, true).find((tool) => tool.name === "quire_export")!;
    expect([over("http").scope, over("http").annotations.readOnlyHint]).toEqual(["read", true]);
    expect([over("stdio").scope, over("stdio").annotations.readOnlyHint]).toEqual(["write", false]);
  });
});
