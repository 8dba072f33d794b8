/**
 * `bun run bench`: every benchmark script in turn, each in its own process so one's memory and
 * warm caches never colour the next. `bun run bench server content` runs only the named ones.
 * Each script can also be run alone (see its header for its own options).
 */
const SCRIPTS: Array<{ name: string; args: string[] }> = [
  { name: "server", args: ["bench/run.ts"] }, // login, authenticated reads, concurrency, RSS
  { name: "http-core", args: ["bench/http-core.ts"] }, // our own per-request cost
  { name: "content", args: ["bench/content.ts"] }, // save, read, reconcile, RSS with 1,000 pages, fsync
  { name: "search", args: ["bench/search.ts", "1000", "10000"] },
  { name: "restricted", args: ["bench/restricted-folders.ts"] }, // 200 restricted folders, 10,000 pages: search and tree for a member who sees half
  { name: "members", args: ["bench/workspaces-members.ts"] }, // 200 workspaces × 50 members, one of 5,000: sign-in, workspace and member lists, access checks
  { name: "git", args: ["bench/git.ts"] }, // webhook → visible, commit cost, 1,000-file clone
  { name: "analytics", args: ["bench/analytics.ts"] }, // record cost, reports at the caps, file size
  { name: "render", args: ["bench/render.ts"] }, // the published-page renderer alone: cold, warm, cached
  { name: "ops", args: ["bench/ops.ts"] }, // status, doctor, /metrics scrape, backup on 1,000 pages
  { name: "history", args: ["bench/history.ts"] }, // 50,000 commits: backfill, history list, a 5,000-line page's diff
  { name: "history-restore", args: ["bench/history-restore.ts"] }, // restoring a version of a 5,000-line page over the API
  { name: "mcp", args: ["bench/mcp.ts"] }, // compiled quire mcp start → tools/list; read/search/update over stdio and HTTP vs REST
  { name: "publish", args: ["bench/publish.ts"] }, // published pages: cached, first render, vs nginx and through nginx proxy_cache, RSS of 1,000 pages
  { name: "site-scale", args: ["bench/site-scale.ts", "5000"] }, // a 5,000-page site: page size, nav.json, cached page and first render
  { name: "export-peers", args: ["bench/export-peers.ts", "1000", "10000"] }, // quire export vs Hugo, MkDocs, VitePress; quality scan
  { name: "quality", args: ["bench/quality-scan.ts"] }, // the quality scan of 1,000 pages: first scan, re-scan, link regions
  { name: "team", args: ["bench/team-editing.ts"] }, // ten people editing at once: 429s (docs/architecture.md §10)
  { name: "editor", args: ["bench/editor.ts"] }, // the rich editor on a 1,000-block page; the bundle before and after
  { name: "editor-floor", args: ["bench/editor-floor.ts"] }, // typing latency on bare contenteditable, ProseMirror, Tiptap beside the app
  { name: "crash", args: ["bench/crash.ts"] }, // SIGKILL at four points of a 1,000-write burst; commit lag
];

const wanted = new Set(process.argv.slice(2));
let failed = 0;
for (const script of SCRIPTS) {
  if (wanted.size > 0 && !wanted.has(script.name)) continue;
  console.log(`\n=== ${script.name} (bun ${script.args.join(" ")})`);
  const child = Bun.spawn(["bun", ...script.args], { stdout: "inherit", stderr: "inherit" });
  if ((await child.exited) !== 0) {
    failed++;
    console.error(`${script.name} exited with ${child.exitCode}`);
  }
}
process.exit(failed > 0 ? 1 : 0);
export {};
