/**
 * Restoring a version (issue 18's budget: < 30 ms plus the commit): a 5,000-line page with 20
 * versions on a real server; each restore is a hash-checked save of an older version through the
 * API, timed from request to answer (the commit follows in the git worker, as for any save).
 * `bun bench/history-restore.ts [restores]`.
 */
import { startTestServer } from "../test/helpers/server.ts";
import { registerUser } from "../test/helpers/factories.ts";
import { percentile, printTable, type Row } from "./harness.ts";

const RESTORES = Number(process.argv[2] ?? 40);
const LINES = 5000;
const server = await startTestServer();
try {
  const user = await registerUser(server.url);
  const content = `/api/v1/content/${user.workspaceSlug}/long.md`;
  const base = `/api/v1/workspaces/${user.workspaceId}`;
  const lines = Array.from({ length: LINES }, (_, k) => `Line ${k} of the long page, with some words to compare.`);
  if ((await user.client.post(content, { title: "Long", body: lines.join("\n") + "\n" })).status !== 201) throw new Error("create failed");
  for (let v = 0; v < 20; v++) {
    lines[(v * 251) % LINES] += ` edit ${v}`;
    const page = (await user.client.get(content)).body;
    const r = await user.client.put(content, { body: lines.join("\n") + "\n", lastKnownHash: page.content_hash });
    if (r.status !== 200) throw new Error(`save failed: ${r.status}`);
    await server.services.gitSync.idle();
  }
  await server.services.versionIndex.idle(user.workspaceId);
  const versions = (await user.client.get(`${base}/history?path=long.md&limit=25`)).body.items as Array<{ commit: string }>;
  const times: number[] = [];
  for (let i = 0; i < RESTORES; i++) {
    const hash = (await user.client.get(content)).body.content_hash;
    const commit = versions[1 + (i % (versions.length - 1))]!.commit;
    const t = performance.now();
    const r = await user.client.post(`${base}/history/restore`, { path: "long.md", commit, last_known_hash: hash });
    times.push(performance.now() - t);
    if (r.status !== 200) throw new Error(`restore failed: ${r.status} ${r.text}`);
    await server.services.gitSync.idle();
  }
  times.sort((a, b) => a - b);
  const rows: Row[] = [
    { measure: `restore a version of a ${LINES}-line page over the API (${RESTORES} restores): p50`, value: `${percentile(times, 50).toFixed(2)} ms`, note: "budget < 30 ms plus the commit" },
    { measure: "restore: p99", value: `${percentile(times, 99).toFixed(2)} ms` },
  ];
  printTable("Page history: restore", rows);
} finally {
  await server.close();
}
