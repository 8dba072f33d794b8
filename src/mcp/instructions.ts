import type { Principal } from "../access/principal.ts";
import type { Services } from "../services.ts";

const HOW =
  "How to work: find pages with quire_search (words) or quire_list_pages / quire_get_tree (structure); read one with quire_read_page " +
  "(long pages come in slices: read on from next_offset). To change part of a page, call quire_update_page with edits [{find, replace}] " +
  "and the content_hash you read as last_known_hash (a stale hash fails and names the current one: read again and redo the change); " +
  "quire_write_page creates or replaces a whole page. Paths look like guide/intro.md (a leading / and the .md are optional). " +
  "Every write is a git commit \"via MCP\" in the name of the key's owner, with the owner's rights. Lists are paginated: pass next_cursor back as cursor.";

/** The server's `instructions`: what Quire is, which workspace(s) this session reaches, how to work. */
export function instructionsFor(services: Services, principal: Principal, fixedWorkspace: string | undefined): string {
  const head = "Quire: team documentation as Markdown pages in git-backed workspaces.";
  if (fixedWorkspace !== undefined) {
    const ws = services.workspaces.bySlug(fixedWorkspace);
    const pages = ws ? services.ledger.pageCount(ws.id) : 0;
    const desc = ws?.description ? ` — ${ws.description.slice(0, 300)}` : "";
    return `${head} This server serves the workspace "${ws?.name ?? fixedWorkspace}" (slug ${fixedWorkspace}, ${pages} pages)${desc}. ${HOW}`;
  }
  const list = services.workspaceService.list(principal, { limit: 10 });
  const names = list.items.map((w) => `${w.slug} ("${w.name}", ${w.role ?? "no role"}, ${w.page_count} pages)`).join("; ");
  const more = list.next_cursor ? "; more with quire_list_workspaces" : "";
  const which =
    list.items.length === 1
      ? `This key reaches one workspace: ${names}; the workspace argument may be left out.`
      : `This key reaches these workspaces: ${names || "none"}${more}. Name one with the workspace argument.`;
  return `${head} ${which} ${HOW}`;
}
