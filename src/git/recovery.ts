import type { Db } from "../db/database.ts";
import { isoFromMs } from "../core/clock.ts";
import { SYSTEM_AUTHOR } from "./repo.ts";
import type { Author } from "./commit-message.ts";
import { commitPath } from "./commit-message.ts";

/**
 * What a recovery commits after an unclean stop (docs/decisions/git-commits.md §14): the files that differ from
 * HEAD, split by who saved them since HEAD was made, as the activity feed records it. A file
 * saved by exactly one person since then goes into that person's recovery commit; a file saved by
 * several people (one commit would carry another author's change), or with no save recorded (an
 * upload, a file changed on disk), goes into one commit by Quire that says who cannot be told.
 * "Since" is the time the git worker recorded in its pending marker, not HEAD's commit time: a
 * worker that lagged made HEAD's commit after saves it did not include.
 */
interface RecoveryGroup {
  author: Author;
  /** The person's user id, null for the group Quire authors. */
  userId: string | null;
  paths: string[];
  message: string;
}

interface ActivityRow {
  actor_id: string | null;
  actor_name: string;
  page_path: string | null;
  details: string;
}

/**
 * Who saved each path since `sinceMs` (the pending marker's time: saves recorded before it are
 * committed; 0 when unknown, and then every save of the path counts): path → user ids (null: no user).
 */
export function saversSince(db: Db, workspaceId: string, sinceMs: number): Map<string, Set<string | null>> {
  const rows = db
    .query<ActivityRow, [string, string]>(
      `SELECT actor_id, actor_name, page_path, details FROM activity
        WHERE workspace_id = ? AND created_at >= ? AND action IN ('page_created', 'page_updated', 'page_deleted', 'page_moved')`,
    )
    .all(workspaceId, isoFromMs(sinceMs));
  const out = new Map<string, Set<string | null>>();
  const add = (path: unknown, actor: string | null) => {
    if (typeof path !== "string" || path === "") return;
    let set = out.get(path);
    if (!set) out.set(path, (set = new Set()));
    set.add(actor);
  };
  for (const row of rows) {
    add(row.page_path, row.actor_id);
    try {
      const details = JSON.parse(row.details) as { old_path?: unknown };
      add(details.old_path, row.actor_id); // a move also removed its old path
    } catch {
      // details are always JSON; a row that is not says nothing more
    }
  }
  return out;
}

/**
 * Splits the differing paths into recovery commits: one per person (in the order their first
 * path appears), then Quire's for the rest. `author` resolves a user id to the commit author
 * (null when the account is gone).
 */
export function recoveryGroups(paths: string[], savers: Map<string, Set<string | null>>, author: (userId: string) => Author | null): RecoveryGroup[] {
  const byUser = new Map<string, { author: Author; paths: string[] }>();
  const unknown: string[] = [];
  for (const path of paths) {
    const who = savers.get(path);
    const only = who && who.size === 1 ? [...who][0]! : null;
    const resolved = only !== null ? author(only) : null;
    if (only === null || resolved === null) {
      unknown.push(path);
      continue;
    }
    let group = byUser.get(only);
    if (!group) byUser.set(only, (group = { author: resolved, paths: [] }));
    group.paths.push(path);
  }
  const groups: RecoveryGroup[] = [...byUser].map(([userId, g]) => ({
    author: g.author,
    userId,
    paths: g.paths,
    message: recoveryMessage(g.paths, `Saved by ${g.author.name} and acknowledged, but not committed before the server stopped.`),
  }));
  if (unknown.length > 0) {
    groups.push({
      author: SYSTEM_AUTHOR,
      userId: null,
      paths: unknown,
      message: recoveryMessage(
        unknown,
        "These files differed from the last commit when Quire started again. Who changed them cannot be told: several people saved them since the last commit, or no save of them is recorded (an upload, a change on disk).",
      ),
    });
  }
  return groups;
}

/** At most this many paths are listed in one message; the rest are counted. */
const LISTED = 500;

function recoveryMessage(paths: string[], why: string): string {
  const n = paths.length;
  const subject = `Recover ${n === 1 ? commitPath(paths[0]!) : `${n} files`} saved before an unclean stop via Quire`;
  const listed = paths.slice(0, LISTED).map((p) => `- ${commitPath(p)}`);
  if (n > LISTED) listed.push(`- … and ${n - LISTED} more`);
  return `${subject}\n\n${why}\n\n${listed.join("\n")}`;
}
