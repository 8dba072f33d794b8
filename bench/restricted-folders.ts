/**
 * Restricted folders benchmark (standalone: `bun bench/restricted-folders.ts [pages]`, default 10000).
 *
 * A workspace of `pages` pages in 400 folders, 200 of them restricted to someone else, read by an
 * editor who therefore sees half the pages; and the same workspace read with no rule at all. The
 * services are the real ones (rules, visibility, the ledger's tree, full-text search); pages are
 * shorter than bench/search.ts's (~150 words) so the index builds quickly. Budgets
 * (docs/decisions/restricted-folders.md, DESIGN §11): with restrictions, search p99 < 5 ms and the
 * tree < 20 ms for that member; without, the budgets of docs/architecture.md §11 unchanged.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { openDatabase, migrate } from "../src/db/database.ts";
import { EventBus } from "../src/core/event-bus.ts";
import { createLogger } from "../src/core/log.ts";
import { ulid } from "../src/core/ids.ts";
import { WorkspaceRecords } from "../src/workspaces/workspace-records.ts";
import { Permissions } from "../src/access/permissions.ts";
import { Users } from "../src/identity/users.ts";
import { Restrictions } from "../src/access/restrictions/restrictions-service.ts";
import { OPEN, type PageVisibility } from "../src/access/restrictions/visibility.ts";
import { SearchService } from "../src/search/search-service.ts";
import { ContentLedger } from "../src/content/ledger.ts";
import { assertLanding, type ContentAccess } from "../src/content/rights.ts";
import { deepestFolder } from "../src/content/tree-slice.ts";
import { Members } from "../src/access/members.ts";
import { ShareLinks } from "../src/access/share-links.ts";
import { SharedPages } from "../src/content/shared-page.ts";
import { PageRecords } from "../src/content/page-records.ts";
import { sha256Hex } from "../src/core/crypto.ts";

const PAGES = Number(process.argv[2] ?? 10000);
const FOLDERS = 400;
const RESTRICTED = 200;
const QUERIES = 1000;

let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const WORDS = (
  "the of and to in is for that with on as by be this are from or it an at you can use page file workspace server client " +
  "request response error config install deploy database query index search user token session access role admin editor " +
  "viewer comment event stream socket markdown title description publish site theme export import backup restore sync git " +
  "remote branch commit push pull merge conflict webhook header cookie cache memory disk latency budget benchmark test build"
).split(" ");
for (let i = 0; i < 3000; i++) WORDS.push(`w${Math.floor(rand() * 1e6).toString(36)}`);
const word = () => WORDS[Math.floor(Math.pow(rand(), 2.5) * WORDS.length)]!;
const words = (n: number) => Array.from({ length: n }, word).join(" ");

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const fmt = (ms: number) => ms.toFixed(2);
function timed(n: number, run: (i: number) => void): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    run(i);
    out.push(performance.now() - t);
  }
  return out.sort((a, b) => a - b);
}
const line = (label: string, t: number[], budget: string) =>
  console.log(`${label.padEnd(58)} p50 ${fmt(pct(t, 50))} ms  p99 ${fmt(pct(t, 99))} ms  max ${fmt(t[t.length - 1]!)} ms   (${budget})`);

const dir = mkdtempSync(join(tmpdir(), "quire-bench-restricted-"));
const db = openDatabase(join(dir, "quire.db"));
migrate(db);
const now = new Date().toISOString();
db.query("INSERT INTO organizations (id, name, handle, created_at) VALUES ('o', 'o', 'o', ?)").run(now);
const wsId = ulid();
db.query("INSERT INTO workspaces (id, org_id, name, slug, webhook_secret, created_at, updated_at) VALUES (?, 'o', 'w', 'w', 's', ?, ?)").run(wsId, now, now);
const workspaces = new WorkspaceRecords(db);
const workspace = workspaces.byId(wsId)!;
const permissions = new Permissions(db, workspaces);
const restrictions = new Restrictions({ db, permissions, users: new Users(db) });
const bus = new EventBus();
const log = createLogger({ write: () => {} });
const search = new SearchService({ db, dataDir: dir, bus, permissions, restrictions, workspaces, log });
search.start();
const ledger = new ContentLedger({ db, dataDir: dir, bus, log });

const load = (() => {
  try {
    return require("node:fs").readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  } catch {
    return "n/a";
  }
})();
console.log(`bun ${Bun.version}, ${navigator.hardwareConcurrency} cores, load average ${load}; ${PAGES} pages in ${FOLDERS} folders, ${RESTRICTED} restricted`);
const record = db.query(
  `INSERT INTO pages (id, workspace_id, path, title, description, tags, content_hash, frontmatter_hash, created_at, updated_at)
   VALUES (?, ?, ?, ?, '', '[]', ?, 'sha256:0', ?, ?)`,
);
const pages = Array.from({ length: PAGES }, (_, i) => ({
  page_id: ulid(),
  path: `folder-${i % FOLDERS}/page-${i}.md`,
  title: words(4),
  description: "",
  tags: [] as string[],
  body: `# ${words(4)}\n\n${words(50)}.\n\n${words(50)}.\n\n${words(50)}.`,
}));
for (const p of pages) {
  const file = join(dir, "workspaces", wsId, p.path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `---\nid: ${p.page_id}\ntitle: ${p.title}\n---\n\n${p.body}`);
}
db.transaction(() => {
  for (const p of pages) record.run(p.page_id, wsId, p.path, p.title, `sha256:${p.page_id}`, now, now);
})();
let t = performance.now();
for (const p of pages) bus.publishChange({ kind: "upsert", workspace_id: wsId, page: p });
search.flush();
console.log(`indexed in ${fmt(performance.now() - t)} ms`);

const accessOf = (visibility: PageVisibility): ContentAccess => ({ workspace, role: "editor", visibility, actor: { id: null, name: "bench" }, origin: "API" });
const qs = Array.from({ length: QUERIES }, () => Array.from({ length: 1 + Math.floor(rand() * 2) }, () => WORDS[Math.floor(rand() * 300)]!).join(" "));

function measure(label: string, vis: () => PageVisibility, budgets: { search: string; tree: string }) {
  for (const q of qs.slice(0, 100)) search.searchWorkspace(wsId, q, 20, vis()); // warm-up
  let hits = 0;
  // CPU time too: on a shared machine the wall clock also counts waiting for a core.
  const cpu: number[] = [];
  const s = timed(QUERIES, (i) => {
    const c0 = process.cpuUsage();
    hits += search.searchWorkspace(wsId, qs[i]!, 20, vis()).length;
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  });
  line(`${label}: search (${(hits / QUERIES).toFixed(1)} hits avg)`, s, budgets.search);
  line(`${label}: search, CPU time`, cpu.sort((a, b) => a - b), budgets.search);
  // A person's first tree after the rules (or the pages) changed: visibility and tree built anew.
  const cold = timed(30, () => {
    restrictions.forget(wsId);
    db.query("UPDATE pages SET sort_order = NULL WHERE id = ?").run(pages[0]!.page_id); // a change: no tree is kept
    ledger.tree(accessOf(vis()));
  });
  line(`${label}: tree, first after a change`, cold, budgets.tree);
  const warm = timed(200, () => ledger.tree(accessOf(vis())));
  line(`${label}: tree, kept`, warm, budgets.tree);
  return { visible: ledger.tree(accessOf(vis())).length };
}

const open = measure("no rules", () => OPEN, { search: "10,000 pages: p99 < 10 ms", tree: "unchanged" });
const insertRule = db.query("INSERT INTO access_rules (workspace_id, path, entries, updated_at) VALUES (?, ?, ?, ?)");
db.transaction(() => {
  for (let f = 0; f < RESTRICTED; f++) insertRule.run(wsId, `folder-${f}/`, JSON.stringify([{ who: "someone.else@example.test", level: "edit" }]), now);
})();
restrictions.forget(wsId);
const member = () => restrictions.visibility(workspace, "member@example.test", "editor");
t = performance.now();
const first = member();
console.log(`rules loaded and the member's visibility made in ${fmt(performance.now() - t)} ms (restricted: ${first.restricted})`);
const half = measure("200 restricted, member sees half", member, { search: "p99 < 5 ms", tree: "< 20 ms" });
console.log(`top-level folders in the tree: ${open.visible} without rules, ${half.visible} for the member`);
// "No access" and "does not exist" must not be told apart by their timing: 1,000 tries each, interleaved.
const memberAccess = accessOf(member());
const attempt = (path: string) => () => {
  try {
    ledger.read(memberAccess, path);
  } catch {
    // both answer NOT_FOUND
  }
};
const hiddenRead = attempt("folder-0/page-0.md");
const missingRead = attempt("folder-0/page-none.md");
for (let i = 0; i < 200; i++) (hiddenRead(), missingRead());
const hiddenTimes: number[] = [];
const missingTimes: number[] = [];
for (let i = 0; i < 1000; i++) {
  for (const [run, into] of i % 2 === 0 ? ([[hiddenRead, hiddenTimes], [missingRead, missingTimes]] as const) : ([[missingRead, missingTimes], [hiddenRead, hiddenTimes]] as const)) {
    const t0 = performance.now();
    run();
    into.push(performance.now() - t0);
  }
}
const us = (label: string, t: number[]) =>
  console.log(`${label.padEnd(58)} p50 ${(pct(t, 50) * 1000).toFixed(1)} µs  p90 ${(pct(t, 90) * 1000).toFixed(1)} µs  p99 ${(pct(t, 99) * 1000).toFixed(1)} µs`);
us("a hidden page read by the member (404), 1,000 tries", hiddenTimes.sort((a, b) => a - b));
us("a missing page read by the member (404), 1,000 tries", missingTimes.sort((a, b) => a - b));
// A page share link opened signed out (docs/decisions/restricted-folders.md, "Share links"): one to a
// page of folder-0/ (restricted, no link:anyone) and one to a deleted page there; both answer as missing.
const shareLinks = new ShareLinks({
  db,
  permissions,
  members: new Members({ db, permissions }),
  workspaces,
  present: () => {
    throw new Error("joining is not measured here");
  },
  restrictions,
});
const sharedPages = new SharedPages({ shareLinks, ledger, pages: new PageRecords(db), permissions, users: new Users(db), restrictions, render: () => "" });
const linkTo = (page: { page_id: string }, token: string) =>
  db
    .query("INSERT INTO share_links (id, workspace_id, token_hash, role, created_at, page_id) VALUES (?, ?, ?, 'viewer', ?, ?)")
    .run(ulid(), wsId, sha256Hex(token), now, page.page_id);
linkTo(pages[0]!, "bench-hidden-page-link");
linkTo(pages[FOLDERS]!, "bench-deleted-page-link");
db.query("UPDATE pages SET deleted_at = ? WHERE id = ?").run(now, pages[FOLDERS]!.page_id);
const opens = (token: string) => () => {
  try {
    sharedPages.open(null, token);
  } catch {
    // both answer NOT_FOUND
  }
};
const [openHidden, openDeleted] = [opens("bench-hidden-page-link"), opens("bench-deleted-page-link")];
for (let i = 0; i < 200; i++) (openHidden(), openDeleted());
const linkTimes: [number[], number[]] = [[], []];
for (let i = 0; i < 1000; i++) {
  for (const k of i % 2 === 0 ? [0, 1] : [1, 0]) {
    const t0 = performance.now();
    [openHidden, openDeleted][k]!();
    linkTimes[k]!.push(performance.now() - t0);
  }
}
us("a share link to a hidden page, signed out (404), 1,000 tries", linkTimes[0].sort((a, b) => a - b));
us("a share link to a deleted page, signed out (404)", linkTimes[1].sort((a, b) => a - b));
// A page landing (docs/decisions/restricted-folders.md, "Writing into a folder you cannot see"): the
// check a create asks, over the member's own tree. folder-0/ is hidden, folder-new/ does not exist:
// both are new folders at the root, which holds hidden rules, so both are refused (interleaved);
// folder-300/ is seen and holds nothing hidden, so a new folder in it is allowed.
const lands = (path: string) => () => {
  try {
    assertLanding(memberAccess, path, (folder) => deepestFolder(ledger.tree(memberAccess), folder));
  } catch {
    // refused: 403
  }
};
const [landHidden, landFresh, landAllowed] = [lands("folder-0/new.md"), lands("folder-new/new.md"), lands("folder-300/new/page.md")];
for (let i = 0; i < 200; i++) (landHidden(), landFresh(), landAllowed());
const landings: [number[], number[], number[]] = [[], [], []];
for (let i = 0; i < 1000; i++) {
  const order = i % 2 === 0 ? [0, 1, 2] : [1, 0, 2];
  for (const k of order) {
    const t0 = performance.now();
    [landHidden, landFresh, landAllowed][k]!();
    landings[k]!.push(performance.now() - t0);
  }
}
us("a landing in a hidden folder (403), tree kept, 1,000 tries", landings[0].sort((a, b) => a - b));
us("a landing in a new folder beside it (403), tree kept", landings[1].sort((a, b) => a - b));
us("a landing in a new folder under folder-300/ (allowed)", landings[2].sort((a, b) => a - b));
// The folders holding a hidden rule, made once per person and rules snapshot on their first landing.
const hiddenBelow: number[] = [];
for (let i = 0; i < 30; i++) {
  restrictions.forget(wsId);
  const fresh = member();
  const t0 = performance.now();
  fresh.holdsHidden("");
  hiddenBelow.push(performance.now() - t0);
}
line("the folders above a hidden rule, first landing", hiddenBelow.sort((a, b) => a - b), "once per rules snapshot");
const noRules = timed(100_000, () => restrictions.visibility({ ...workspace, id: "no-rules-workspace" }, "member@example.test", "editor"));
line("no rules: the visibility a request asks for", noRules, "constant: OPEN");
search.stop();
db.close();
rmSync(dir, { recursive: true, force: true });
