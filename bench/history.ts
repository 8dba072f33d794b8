/**
 * Page history (docs/architecture.md §11, §15): on a generated repository of N commits over P pages (default
 * 50,000 / 2,000, made with `git fast-import`), the backfill of the version index, a page's
 * history list (p50/p99 over random pages; budget p99 < 20 ms) and a diff of two versions of a
 * 5,000-line page (budget < 50 ms). `bun bench/history.ts [commits] [pages]`.
 */
import { OPEN } from "../src/access/restrictions/visibility.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, migrate } from "../src/db/database.ts";
import { silentLogger } from "../src/core/log.ts";
import { EventBus } from "../src/core/event-bus.ts";
import { ContentLedger } from "../src/content/ledger.ts";
import type { ContentAccess } from "../src/content/rights.ts";
import type { WorkspaceRow } from "../src/workspaces/workspace-records.ts";
import { HistoryService } from "../src/history/history-service.ts";
import { VersionIndex } from "../src/history/version-index.ts";

const COMMITS = Number(process.argv[2] ?? 50_000);
const PAGES = Number(process.argv[3] ?? 2_000);
const BIG_LINES = 5_000;
const WS = "01HZX3K8R2V6J9Q4T7W1Y5B0NC";

const root = mkdtempSync(join(tmpdir(), "quire-bench-history-"));
const dataDir = join(root, "data");
const work = join(dataDir, "workspaces", WS);

function pct(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
const fmt = (ms: number) => `${ms.toFixed(2)} ms`;

async function generate() {
  await Bun.$`mkdir -p ${work} && git -C ${work} init -q -b main`.quiet();
  const proc = Bun.spawn(["git", "-C", work, "fast-import", "--quiet"], { stdin: "pipe", stdout: "ignore", stderr: "inherit" });
  const pages: string[][] = [];
  const id = (i: number) => `01HZX3K8R2V6J9Q4T7${String(i).padStart(8, "0")}`;
  for (let i = 0; i < PAGES; i++) {
    const lines = i === 0 ? Array.from({ length: BIG_LINES }, (_, k) => `Line ${k} of the long page, with some words to compare.`) : Array.from({ length: 20 }, (_, k) => `Line ${k} of page ${i}.`);
    pages.push(lines);
  }
  const text = (i: number) => `---\nid: ${id(i)}\ntitle: Page ${i}\n---\n\n${pages[i]!.join("\n")}\n`;
  const path = (i: number) => `section-${i % 40}/page-${i}.md`;
  let t = 1_700_000_000;
  let out = "";
  const enc = new TextEncoder();
  const flush = async () => {
    proc.stdin.write(enc.encode(out));
    await proc.stdin.flush();
    out = "";
  };
  const authors = ["Ada <ada@example.test>", "Grace <grace@example.test>", "Linus <linus@example.test>"];
  for (let c = 0; c < COMMITS; c++) {
    const files: number[] = c < PAGES ? [c] : [c % 50 === 0 ? 0 : 1 + Math.floor(Math.random() * (PAGES - 1))];
    for (const f of files) {
      if (c >= PAGES) {
        const lines = pages[f]!;
        const k = Math.floor(Math.random() * lines.length);
        lines[k] = `${lines[k]} edit ${c}`;
      }
    }
    const msg = c < PAGES ? `Create ${path(files[0]!)} via web editor` : `Update ${path(files[0]!)} via ${["web editor", "API", "MCP"][c % 3]}`;
    out += `commit refs/heads/main\nauthor ${authors[c % 3]} ${t} +0000\ncommitter ${authors[c % 3]} ${t} +0000\ndata ${enc.encode(msg).length}\n${msg}\n`;
    for (const f of files) {
      const body = text(f);
      out += `M 100644 inline ${path(f)}\ndata ${enc.encode(body).length}\n${body}\n`;
    }
    t += 7;
    if (out.length > 1 << 20) await flush();
  }
  await flush();
  proc.stdin.end();
  await proc.exited;
  await Bun.$`git -C ${work} reset -q --hard main`.quiet();
}

let t0 = performance.now();
await generate();
console.log(`generated ${COMMITS} commits over ${PAGES} pages in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const db = openDatabase(join(dataDir, "quire.db"));
migrate(db);
db.exec("PRAGMA foreign_keys = OFF"); // no workspace row: the index and the service only need the id
const ledger = new ContentLedger({ db, dataDir, bus: new EventBus(), log: silentLogger });
const index = new VersionIndex({ db, log: silentLogger, workTree: (id) => ledger.dir(id).root });
const history = new HistoryService({ db, ledger, index });
const access: ContentAccess = { workspace: { id: WS } as WorkspaceRow, role: "admin", visibility: OPEN, actor: { id: null, name: "bench" }, origin: "API" };

t0 = performance.now();
const during: number[] = [];
await index.catchUp(WS); // HEAD is queued: reads from here on see the index filling
const fill = index.idle(WS);
let filling = true;
void fill.then(() => (filling = false));
while (filling) {
  const s = performance.now();
  await history.versions(access, "section-1/page-1.md", 50);
  during.push(performance.now() - s);
  await Bun.sleep(50);
}
await fill;
const backfill = (performance.now() - t0) / 1000;
const versions = db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM page_versions").get()!.n;
during.sort((a, b) => a - b);
console.log(`backfill: ${backfill.toFixed(1)} s for ${COMMITS} commits (${versions} page versions; budget < 60 s)`);
console.log(`history reads served meanwhile (one every 50 ms): ${during.length}, p50 ${fmt(pct(during, 50))}, p99 ${fmt(pct(during, 99))}, slowest ${fmt(during.at(-1) ?? 0)}`);

const lists: number[] = [];
for (let i = 0; i < 2000; i++) {
  const p = 1 + Math.floor(Math.random() * (PAGES - 1));
  const s = performance.now();
  await history.versions(access, `section-${p % 40}/page-${p}.md`, 50);
  lists.push(performance.now() - s);
}
lists.sort((a, b) => a - b);
console.log(`history list (50 newest, random page): p50 ${fmt(pct(lists, 50))}, p99 ${fmt(pct(lists, 99))} (budget p99 < 20 ms)`);

const big = await history.versions(access, "section-0/page-0.md", 100);
const deep: number[] = [];
let cursor: string | undefined;
let pagesRead = 0;
do {
  const s = performance.now();
  const page = await history.versions(access, "section-0/page-0.md", 100, cursor);
  deep.push(performance.now() - s);
  cursor = page.next_cursor ?? undefined;
  pagesRead += page.items.length;
} while (cursor);
deep.sort((a, b) => a - b);
console.log(`the ${BIG_LINES}-line page's ${pagesRead} versions paged to the end by 100: p50 ${fmt(pct(deep, 50))}, p99 ${fmt(pct(deep, 99))}`);

const diffs: number[] = [];
for (let i = 0; i < 30; i++) {
  const a = big.items[5 + i]!.commit;
  const b = big.items[i]!.commit;
  const s = performance.now();
  await history.diffVersions(access, "section-0/page-0.md", a, b);
  diffs.push(performance.now() - s);
}
diffs.sort((a, b) => a - b);
console.log(`diff of two versions of the ${BIG_LINES}-line page (five edits apart): p50 ${fmt(pct(diffs, 50))}, p99 ${fmt(pct(diffs, 99))} (budget < 50 ms)`);
console.log(`RSS ${(process.memoryUsage().rss / 1048576).toFixed(0)} MB`);
db.close();
rmSync(root, { recursive: true, force: true });
