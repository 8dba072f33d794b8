import type { CommitInfo } from "./git-objects.ts";

/**
 * Which of the local history's commits the remote does not hold (docs/decisions/page-history.md §11):
 * commits reachable from HEAD but not from the remote-tracking ref — versions not pushed yet, and
 * versions a force-push removed from the remote that Quire has not merged back and pushed. Found by
 * painting both tips down through their parents, newest commit first, until every commit still to
 * visit is reachable from the remote (git's merge-base walk without generation numbers: a committer
 * clock set years wrong can make it stop early and call a commit local that the remote holds). Past
 * `cap` commits visited the answer is unknown (null), never a guess.
 */
const FROM_HEAD = 1;
const FROM_REMOTE = 2;

export async function localOnly(read: (oid: string) => Promise<CommitInfo | null>, head: string, remote: string, cap = 20_000): Promise<Set<string> | null> {
  const flags = new Map<string, number>();
  const commits = new Map<string, CommitInfo | null>();
  const queue: string[] = [];
  const time = (oid: string) => commits.get(oid)?.author.timestamp ?? 0;
  const load = async (oid: string) => {
    if (!commits.has(oid)) commits.set(oid, await read(oid));
  };
  const mark = async (oid: string, flag: number) => {
    const before = flags.get(oid) ?? 0;
    if ((before | flag) === before) return;
    flags.set(oid, before | flag);
    await load(oid);
    // Newest last, so pop() takes the newest; a commit whose flags grew is visited again.
    const at = queue.indexOf(oid);
    if (at >= 0) queue.splice(at, 1);
    let i = queue.length;
    while (i > 0 && time(queue[i - 1]!) > time(oid)) i--;
    queue.splice(i, 0, oid);
  };
  await mark(head, FROM_HEAD);
  await mark(remote, FROM_REMOTE);
  let visited = 0;
  while (queue.some((oid) => flags.get(oid) === FROM_HEAD)) {
    if (++visited > cap) return null;
    const oid = queue.pop()!;
    const flag = flags.get(oid)!;
    for (const parent of commits.get(oid)?.parents ?? []) await mark(parent, flag);
  }
  const out = new Set<string>();
  for (const [oid, flag] of flags) if (flag === FROM_HEAD) out.add(oid);
  return out;
}
