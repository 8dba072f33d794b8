/**
 * Workspaces and members at scale (standalone: `bun bench/workspaces-members.ts [workspaces] [members] [big]`,
 * default 200 × 50 and one workspace of 5,000).
 *
 * A data directory is seeded directly in quire.db (the API would take hours: every account's
 * password hashed with the production argon2 parameters, and sign-ups limited per address):
 * `workspaces` workspaces of `members` people each, all of them in one organization; one workspace
 * of `big` members drawn from the same people; and one person who belongs to every workspace
 * (admin of each). Every account has the same password, hashed once with the production
 * parameters. Then a real `quire serve` starts on it and is measured over HTTP (its rate limits
 * as shipped; sign-ins come from distinct addresses through X-Forwarded-For):
 *
 * - start-up and resident memory with that many workspaces;
 * - sign-in (POST /api/auth/login), a person in one workspace and the one in all of them;
 * - the workspace list (GET /api/v1/workspaces) for both, its first page and every page;
 * - the member list of the big workspace (GET …/admin/members): first page, a late page, all of it;
 * - the access check a request to a workspace makes (GET /api/v1/workspaces/:id) in the big one
 *   and a small one, and the check itself in-process (Permissions.roleIn), per call.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate, openDatabase } from "../src/db/database.ts";
import { ulid } from "../src/core/ids.ts";
import { ARGON2_DEFAULTS, createPasswordHasher } from "../src/identity/passwords.ts";
import { Permissions } from "../src/access/permissions.ts";
import { WorkspaceRecords } from "../src/workspaces/workspace-records.ts";
import { ipFor, mb, ms, percentile, printTable, rssMb, startServer, type Row } from "./harness.ts";

const WORKSPACES = Number(process.argv[2] ?? 200);
const MEMBERS = Number(process.argv[3] ?? 50);
const BIG = Number(process.argv[4] ?? 5000);
const PASSWORD = "correct horse battery staple";

const load = () => {
  try {
    return require("node:fs").readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  } catch {
    return "n/a";
  }
};
console.log(`bun ${Bun.version}, ${navigator.hardwareConcurrency} cores, load average ${load()}; ${WORKSPACES} workspaces × ${MEMBERS} members, one of ${BIG}`);

// ---- seed ----
const dataDir = mkdtempSync(join(tmpdir(), "quire-bench-members-"));
const db = openDatabase(join(dataDir, "quire.db"));
migrate(db);
const now = new Date().toISOString();
let t = performance.now();
const hash = await createPasswordHasher(ARGON2_DEFAULTS).hash(PASSWORD);
const people = WORKSPACES * MEMBERS;
const userIds: string[] = [];
const workspaceIds: string[] = [];
const records = new WorkspaceRecords(db);
const everywhere = ulid();
const orgId = ulid();
db.transaction(() => {
  db.query("INSERT INTO organizations (id, name, handle, owner_id, is_default, created_at) VALUES (?, 'Bench', 'bench', NULL, 1, ?)").run(orgId, now);
  const user = db.query(
    "INSERT INTO users (id, name, email, email_normalized, email_verified, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, ?, ?)",
  );
  const orgMember = db.query("INSERT INTO org_members (org_id, user_id, role, joined_at) VALUES (?, ?, 'member', ?)");
  for (let i = 0; i <= people; i++) {
    const id = i === people ? everywhere : ulid();
    const email = i === people ? "everywhere@example.test" : `person${i}@example.test`;
    user.run(id, i === people ? "In every workspace" : `Person ${i}`, email, email, hash, now, now);
    orgMember.run(orgId, id, now);
    if (i < people) userIds.push(id);
  }
  const member = db.query("INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (?, ?, ?, ?)");
  for (let w = 0; w < WORKSPACES; w++) {
    const ws = records.insert({ orgId, name: `Workspace ${w}`, slug: `ws-${w}`, createdBy: everywhere, now });
    workspaceIds.push(ws.id);
    for (let m = 0; m < MEMBERS; m++) member.run(ws.id, userIds[w * MEMBERS + m]!, m === 0 ? "admin" : "editor", now);
    member.run(ws.id, everywhere, "admin", now);
  }
  const big = records.insert({ orgId, name: "Everyone", slug: "everyone", createdBy: everywhere, now });
  workspaceIds.push(big.id);
  for (let m = 0; m < Math.min(BIG, people); m++) member.run(big.id, userIds[m]!, "viewer", now);
  member.run(big.id, everywhere, "admin", now);
})();
const bigId = workspaceIds[workspaceIds.length - 1]!;
// Each workspace's folder with one page, as a created workspace has: the server watches each one.
for (const id of workspaceIds) {
  mkdirSync(join(dataDir, "workspaces", id), { recursive: true });
  writeFileSync(join(dataDir, "workspaces", id, "index.md"), "---\ntitle: Home\n---\n\nWelcome.\n");
}
const memberships = db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM workspace_members").get()!.n;
console.log(`seeded ${people + 1} people, ${workspaceIds.length} workspaces, ${memberships} memberships in ${(performance.now() - t).toFixed(0)} ms`);

// ---- the access check in-process ----
const permissions = new Permissions(db, records);
const bigRow = records.byId(bigId)!;
const smallRow = records.byId(workspaceIds[0]!)!;
const perCall = (n: number, fn: (i: number) => void) => {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) fn(i);
  return ((performance.now() - t0) / n) * 1000;
};
perCall(2000, (i) => permissions.roleIn(userIds[i % BIG]!, bigRow)); // warm-up
const roleBig = perCall(20_000, (i) => permissions.roleIn(userIds[(i * 7919) % Math.min(BIG, people)]!, bigRow));
const roleSmall = perCall(20_000, (i) => permissions.roleIn(userIds[i % MEMBERS]!, smallRow));
const roleNone = perCall(20_000, (i) => permissions.roleIn(userIds[people - 1 - (i % 1000)]!, bigRow));
db.close();

// ---- the server ----
t = performance.now();
const server = await startServer({ TRUST_PROXY: "true" }, { dataDir });
const rssStart = rssMb(server.pid);
const rows: Row[] = [
  { measure: `start-up to ready, ${workspaceIds.length} workspaces`, value: ms(server.startMs) },
  { measure: "resident memory after start", value: mb(rssStart) },
];
let ip = 0;
async function signIn(email: string): Promise<{ ms: number; token: string }> {
  const t0 = performance.now();
  const r = await fetch(`${server.base}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": ipFor(++ip) },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  const body = (await r.json()) as { access_token?: string };
  if (r.status !== 200 || !body.access_token) throw new Error(`sign-in of ${email}: ${r.status} ${JSON.stringify(body)}`);
  return { ms: performance.now() - t0, token: body.access_token };
}
async function get(token: string, path: string): Promise<{ ms: number; body: { items?: unknown[]; next_cursor?: string | null } }> {
  const t0 = performance.now();
  const r = await fetch(`${server.base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await r.json()) as { items?: unknown[]; next_cursor?: string | null };
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${JSON.stringify(body)}`);
  return { ms: performance.now() - t0, body };
}
const stats = (label: string, samples: number[], note?: string): Row => ({
  measure: label,
  value: `p50 ${ms(percentile(samples, 50))}, p99 ${ms(percentile(samples, 99))}`,
  ...(note ? { note } : {}),
});
async function repeat(n: number, fn: () => Promise<number>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await fn());
  return out;
}
/** Every page of a list, following next_cursor: the time of the whole walk and the items seen. */
async function walk(token: string, path: string, limit: number): Promise<{ ms: number; items: number; pages: number }> {
  const t0 = performance.now();
  let cursor: string | null | undefined;
  let items = 0;
  let pages = 0;
  do {
    const r = await get(token, `${path}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    items += r.body.items?.length ?? 0;
    pages++;
    cursor = r.body.next_cursor;
  } while (cursor);
  return { ms: performance.now() - t0, items, pages };
}

try {
  // Sign-in: argon2 with the production parameters is the cost, whoever signs in. The first one
  // loads argon2 and is left out.
  await signIn("person0@example.test");
  const one: number[] = [];
  for (let i = 0; i < 20; i++) one.push((await signIn(`person${(i * 37) % people}@example.test`)).ms);
  const all: number[] = [];
  let everywhereToken = "";
  for (let i = 0; i < 10; i++) {
    const s = await signIn("everywhere@example.test");
    all.push(s.ms);
    everywhereToken = s.token;
  }
  const personToken = (await signIn(`person${MEMBERS + 1}@example.test`)).token;
  rows.push(stats("sign-in, a person in 2 workspaces (20)", one), stats(`sign-in, the person in all ${workspaceIds.length} (10)`, all));

  // The workspace list.
  await repeat(20, async () => (await get(everywhereToken, "/api/v1/workspaces")).ms); // warm-up
  rows.push(stats("workspace list, first page (50), person in 2 (200)", await repeat(200, async () => (await get(personToken, "/api/v1/workspaces")).ms)));
  rows.push(stats(`workspace list, first page (50), person in ${workspaceIds.length} (200)`, await repeat(200, async () => (await get(everywhereToken, "/api/v1/workspaces")).ms)));
  const listWalks: number[] = [];
  let listed = 0;
  for (let i = 0; i < 20; i++) {
    const w = await walk(everywhereToken, "/api/v1/workspaces", 200);
    listWalks.push(w.ms);
    listed = w.items;
  }
  rows.push(stats(`workspace list, all ${listed} at 200 a page (20)`, listWalks));

  // The member list of the big workspace.
  const membersPath = `/api/v1/workspaces/${bigId}/admin/members`;
  rows.push(stats(`member list, first page (50) of ${Math.min(BIG, people) + 1} (200)`, await repeat(200, async () => (await get(everywhereToken, `${membersPath}?limit=50`)).ms)));
  // A late page: the cursor of the page before the last.
  let cursor: string | null | undefined;
  let lateCursor = "";
  let pagesSeen = 0;
  do {
    const r = await get(everywhereToken, `${membersPath}?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    cursor = r.body.next_cursor;
    if (cursor) lateCursor = cursor;
    pagesSeen++;
  } while (cursor);
  rows.push(stats(`member list, page ${pagesSeen} of ${pagesSeen} (200)`, await repeat(200, async () => (await get(everywhereToken, `${membersPath}?limit=50&cursor=${encodeURIComponent(lateCursor)}`)).ms)));
  const memberWalks: number[] = [];
  let membersListed = 0;
  for (let i = 0; i < 10; i++) {
    const w = await walk(everywhereToken, membersPath, 200);
    memberWalks.push(w.ms);
    membersListed = w.items;
  }
  rows.push(stats(`member list, all ${membersListed} at 200 a page (10)`, memberWalks));

  // The access check a request makes: reading a workspace as one of its members.
  const bigReader = (await signIn(`person${BIG - 1}@example.test`)).token;
  rows.push(stats(`GET a workspace, member of the ${Math.min(BIG, people) + 1}-member one (200)`, await repeat(200, async () => (await get(bigReader, `/api/v1/workspaces/${bigId}`)).ms)));
  rows.push(stats(`GET a workspace, member of a ${MEMBERS + 1}-member one (200)`, await repeat(200, async () => (await get(personToken, `/api/v1/workspaces/${workspaceIds[1]}`)).ms)));
  rows.push(
    { measure: `access check in-process (roleIn), ${Math.min(BIG, people) + 1}-member workspace`, value: `${roleBig.toFixed(1)} µs a call` },
    { measure: `access check in-process (roleIn), ${MEMBERS + 1}-member workspace`, value: `${roleSmall.toFixed(1)} µs a call` },
    { measure: "access check in-process (roleIn), not a member", value: `${roleNone.toFixed(1)} µs a call` },
    { measure: "resident memory at the end", value: mb(rssMb(server.pid)) },
  );
} finally {
  await server.stop();
}
printTable(`Workspaces and members at scale (load average ${load()} at the end)`, rows);
