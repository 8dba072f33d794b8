import type { Db } from "../db/database.ts";
import { isoFromMs } from "../core/clock.ts";
import { SYSTEM_AUTHOR } from "./repo.ts";
import type { Author } from "./commit-message.ts";
import { commitPath } from "./commit-message.ts";

/**
 * What a recovery commits after an unclean stop or a failed commit (docs/decisions/git-commits.md §14,
 * docs/decisions/storage.md §3): the files that differ from HEAD, split by who saved them since
 * HEAD was made, as the activity feed records it. A file saved by exactly one person since then
 * goes into a commit of that person's; a file saved by several people (one commit would carry
 * another author's change), or with no save recorded (an upload, a file changed on disk), goes
 * into one commit by Quire that says who cannot be told. The person's commits follow the order of
 * the saves: each file takes the place of its last save, and consecutive files of one person share
 * a commit — so Ada, then Bob, then Ada again make three commits, as the saves would have.
 * (The work tree holds each file's last version only: earlier saves of the same file cannot be
 * committed apart.) "Since" is the time the git worker recorded in its pending marker, not HEAD's
 * commit time: a worker that lagged made HEAD's commit after saves it did not include.
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

/** Who saved one path since the marker, and the place of its last save among all the saves. */
interface Savers {
  actors: Set<string | null>;
  last: number;
}

/**
 * Who saved each path since `sinceMs` (the pending marker's time: saves recorded before it are
 * committed; 0 when unknown, and then every save of the path counts): path → user ids (null: no
 * user) and the order of its last save.
 */
export function saversSince(db: Db, workspaceId: string, sinceMs: number): Map<string, Savers> {
  const rows = db
    .query<ActivityRow, [string, string]>(
      `SELECT actor_id, actor_name, page_path, details FROM activity
        WHERE workspace_id = ? AND created_at >= ? AND action IN ('page_created', 'page_updated', 'page_deleted', 'page_moved')
        ORDER BY created_at, id`,
    )
    .all(workspaceId, isoFromMs(sinceMs));
  const out = new Map<string, Savers>();
  const add = (path: unknown, actor: string | null, order: number) => {
    if (typeof path !== "string" || path === "") return;
    let savers = out.get(path);
    if (!savers) out.set(path, (savers = { actors: new Set(), last: order }));
    savers.actors.add(actor);
    savers.last = order;
  };
  rows.forEach((row, order) => {
    add(row.page_path, row.actor_id, order);
    try {
      const details = JSON.parse(row.details) as { old_path?: unknown };
      add(details.old_path, row.actor_id, order); // a move also removed its old path
    } catch {
      // details are always JSON; a row that is not says nothing more
    }
  });
  return out;
}

/**
 * Splits the differing paths into recovery commits: one per run of one person's saves, in the
 * order of each file's last save, then Quire's for the rest. `author` resolves a user id to the
 * commit author (null when the account is gone); `why` words the messages.
 */
export function recoveryGroups(
  paths: string[],
  savers: Map<string, Savers>,
  author: (userId: string) => Author | null,
  why: "start" | "failure" = "start",
): RecoveryGroup[] {
  const known: Array<{ path: string; userId: string; author: Author; last: number }> = [];
  const unknown: string[] = [];
  for (const path of paths) {
    const who = savers.get(path);
    const only = who && who.actors.size === 1 ? [...who.actors][0]! : null;
    const resolved = only !== null ? author(only) : null;
    if (only === null || resolved === null) unknown.push(path);
    else known.push({ path, userId: only, author: resolved, last: who!.last });
  }
  known.sort((a, b) => a.last - b.last);
  const runs: Array<{ userId: string; author: Author; paths: string[] }> = [];
  for (const k of known) {
    const run = runs.at(-1);
    if (run && run.userId === k.userId) run.paths.push(k.path);
    else runs.push({ userId: k.userId, author: k.author, paths: [k.path] });
  }
  const when = why === "start" ? "before the server stopped" : "when a commit failed (the disk full or unwritable)";
  const groups: RecoveryGroup[] = runs.map((r) => {
    const listed = [...r.paths].sort();
    return { author: r.author, userId: r.userId, paths: listed, message: recoveryMessage(listed, `Saved by ${r.author.name} and acknowledged, but not committed ${when}.`, why) };
  });
  if (unknown.length > 0) {
    groups.push({
      author: SYSTEM_AUTHOR,
      userId: null,
      paths: unknown,
      message: recoveryMessage(
        unknown,
        `These files differed from the last commit when ${why === "start" ? "Quire started again" : "the history was repaired after a failed commit"}. Who changed them cannot be told: several people saved them since the last commit, or no save of them is recorded (an upload, a change on disk).`,
        why,
      ),
    });
  }
  return groups;
}

/** At most this many paths are listed in one message; the rest are counted. */
const LISTED = 500;

function recoveryMessage(paths: string[], body: string, why: "start" | "failure"): string {
  const n = paths.length;
  const what = n === 1 ? commitPath(paths[0]!) : `${n} files`;
  const subject = why === "start" ? `Recover ${what} saved before an unclean stop via Quire` : `Recover ${what} saved while a commit failed via Quire`;
  const listed = paths.slice(0, LISTED).map((p) => `- ${commitPath(p)}`);
  if (n > LISTED) listed.push(`- … and ${n - LISTED} more`);
  return `${subject}\n\n${body}\n\n${listed.join("\n")}`;
}
