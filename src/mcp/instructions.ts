import type { Principal } from "../core/principal.ts";
import type { Services } from "../services.ts";
import type { WorkspaceRecords } from "../workspaces/workspace-records.ts";

const HEAD = "Quire: team documentation as Markdown pages in git-backed workspaces.";

const HOW =
  "How to work: find pages with quire_search (words) or quire_list_pages / quire_get_tree (structure); read one with quire_read_page " +
  "(long pages come in slices: read on from next_offset). To change part of a page, call quire_update_page with edits [{find, replace}] " +
  "and the content_hash you read as last_known_hash (a stale hash fails and names the current one: read again and redo the change); " +
  "quire_write_page creates or replaces a whole page. Paths look like guide/intro.md (a leading / and the .md are optional). " +
  "Every write is a git commit \"via MCP\" in the name of the key's owner, with the owner's rights. Lists are paginated: pass next_cursor back as cursor.";

/** The server's `instructions` for one workspace (stdio's `-w`): what Quire is, the workspace, how to work. */
export function workspaceInstructions(deps: { workspaces: Pick<WorkspaceRecords, "bySlug">; pageCount(workspaceId: string): number }, slug: string): string {
  const ws = deps.workspaces.bySlug(slug);
  const pages = ws ? deps.pageCount(ws.id) : 0;
  const desc = ws?.description ? ` — ${ws.description.slice(0, 300)}` : "";
  return `${HEAD} This server serves the workspace "${ws?.name ?? slug}" (slug ${slug}, ${pages} pages)${desc}. ${HOW}`;
}

/** The server's `instructions` over HTTP: what Quire is, which workspaces the key reaches, how to work. */
export function instructionsFor(services: Pick<Services, "workspaceService">, principal: Principal): string {
  const list = services.workspaceService.list(principal, { limit: 10 });
  const names = list.items.map((w) => `${w.slug} ("${w.name}", ${w.role ?? "no role"}, ${w.page_count} pages)`).join("; ");
  const more = list.next_cursor ? "; more with quire_list_workspaces" : "";
  const which =
    list.items.length === 1
      ? `This key reaches one workspace: ${names}; the workspace argument may be left out.`
      : `This key reaches these workspaces: ${names || "none"}${more}. Name one with the workspace argument.`;
  return `${HEAD} ${which} ${HOW}`;
}
