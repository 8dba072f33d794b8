import type { Db } from "../db/database.ts";
import type { WorkspaceRow } from "../workspaces/workspace-records.ts";

interface MemberRef {
  id: string;
  name: string;
  email: string;
}

/** People who can read the workspace: its members and the owners of its organization. */
export function workspacePeople(db: Db, workspace: WorkspaceRow): MemberRef[] {
  return db
    .query<MemberRef, [string, string]>(
      `SELECT u.id, u.name, u.email FROM users u
       WHERE u.id IN (SELECT user_id FROM workspace_members WHERE workspace_id = ?)
          OR u.id IN (SELECT user_id FROM org_members WHERE org_id = ? AND role = 'super_admin')`,
    )
    .all(workspace.id, workspace.org_id);
}

const WORD_CHAR = /[\p{L}\p{N}_]/u;

/**
 * User ids mentioned in a comment: `@` followed by a member's email or display name (names may
 * hold spaces, so each `@` is compared with the people of the workspace, longest match first),
 * ending at a non-word character. Nobody outside the workspace can be mentioned, so mentions
 * never reveal or notify strangers.
 */
export function resolveMentions(body: string, people: MemberRef[]): string[] {
  const candidates = people
    .flatMap((p) => [
      { id: p.id, key: p.email.toLowerCase() },
      { id: p.id, key: p.name.toLowerCase() },
    ])
    .filter((c) => c.key !== "")
    .sort((a, b) => b.key.length - a.key.length);
  const lower = body.toLowerCase();
  const found: string[] = [];
  for (let at = lower.indexOf("@"); at !== -1; at = lower.indexOf("@", at + 1)) {
    if (at > 0 && WORD_CHAR.test(lower[at - 1]!)) continue;
    const rest = lower.slice(at + 1);
    const match = candidates.find((c) => rest.startsWith(c.key) && !WORD_CHAR.test(rest[c.key.length] ?? " "));
    if (match && !found.includes(match.id)) found.push(match.id);
  }
  return found;
}
