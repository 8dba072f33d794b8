import { OPEN } from "../access/restrictions/visibility.ts";
import { listAssets, readAssetText } from "../core/assets.ts";
import type { WorkspaceRow } from "../workspaces/workspace-records.ts";
import type { ContentLedger } from "./ledger.ts";

const PREFIX = "starter/";

/**
 * Fills a new starter workspace with the example pages under `assets/starter/` (welcome, guides
 * with wikilinks, components). Each goes through the ledger like any other page, as the user.
 */
export async function seedStarterPages(ledger: ContentLedger, workspace: WorkspaceRow, actor: { id: string; name: string }): Promise<number> {
  let count = 0;
  for (const asset of listAssets(PREFIX)) {
    if (!asset.endsWith(".md")) continue;
    const text = await readAssetText(asset);
    if (text === null) continue;
    await ledger.importPage({ workspace, role: "admin", visibility: OPEN, actor, origin: "starter" }, asset.slice(PREFIX.length), text);
    count++;
  }
  return count;
}
