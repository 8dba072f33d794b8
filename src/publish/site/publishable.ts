import type { PageVisibility } from "../../access/restrictions/visibility.ts";
import type { PageRow } from "../../content/page-records.ts";

/**
 * The pages a published site, its feeds, search and MCP, and an export may show: a page of a
 * restricted folder only when its access lists give `group:everyone` at least view, all the way
 * down (docs/decisions/restricted-folders.md). Whether it is published is decided after this.
 */
export function publishable(rows: PageRow[], everyone: PageVisibility): PageRow[] {
  return everyone.restricted ? rows.filter((r) => everyone.sees(r.path)) : rows;
}
