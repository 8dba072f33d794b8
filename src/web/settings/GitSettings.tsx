/** Git sync settings (placeholder until the sync endpoints are wired). */
import type { Workspace } from "../api/types.ts";

export default function GitSettings({ workspace }: { workspace: Workspace }) {
  return <p className="muted">Git sync for {workspace.name}.</p>;
}
