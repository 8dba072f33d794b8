/**
 * A team of one workspace using the web app as the app itself does (docs/architecture.md §10): every boot
 * of the app trades the refresh cookie, reads /me, takes a WebSocket cookie, lists workspaces and
 * reads the tree and a page; editing autosaves 2 s after the last keystroke (AUTOSAVE_MS), so a
 * person typing steadily saves about once every 2 s. Used by the rate-limit test (a minute's
 * requests squeezed into one window) and by bench/team-editing.ts (the same minute in real time).
 */
import { Client, type ApiResponse } from "./client.ts";

export interface Person {
  client: Client;
  name: string;
  page: string;
  hash: string;
}

export interface Team {
  slug: string;
  workspaceId: string;
  owner: Person;
  people: Person[];
}

/** The owner registers; the others accept editor invitations. All of them speak from `ip` afterwards. */
export async function buildTeam(base: string, size: number, ip: string): Promise<Team> {
  const stamp = Date.now();
  const ownerClient = new Client(base);
  const reg = await ownerClient.post("/api/auth/register", { name: "Owner", email: `owner.${stamp}@example.test`, password: "a team password here", terms_accepted: true });
  if (reg.status !== 201) throw new Error(`register ${reg.status} ${reg.text}`);
  ownerClient.token = reg.body.access_token;
  const ws = (await ownerClient.get("/api/v1/workspaces")).body.items[0];
  const clients: Array<{ client: Client; name: string }> = [{ client: ownerClient, name: "Owner" }];
  for (let i = 1; i < size; i++) {
    const inv = await ownerClient.post(`/api/v1/workspaces/${ws.id}/invitations`, { email: `member${i}.${stamp}@example.test`, role: "editor" });
    if (inv.status !== 201) throw new Error(`invite ${inv.status} ${inv.text}`);
    const token = String(inv.body.url).split("/invite/")[1]!;
    const c = new Client(base);
    const acc = await c.post("/api/auth/invitations/accept", { token, name: `Member ${i}`, password: "a team password here" });
    if (acc.status !== 200 && acc.status !== 201) throw new Error(`accept ${acc.status} ${acc.text}`);
    c.token = acc.body.access_token;
    clients.push({ client: c, name: `Member ${i}` });
  }
  const people: Person[] = [];
  for (const [i, { client, name }] of clients.entries()) {
    const page = `notes-${i}.md`;
    const created = await client.post(`/api/v1/content/${ws.slug}/${page}`, { title: `Notes of ${name}`, body: "Start.\n" });
    if (created.status !== 201) throw new Error(`create ${created.status} ${created.text}`);
    // From here on everyone is behind one office address, as a team often is.
    const office = new Client(base, ip);
    office.token = client.token;
    office.cookies = client.cookies;
    people.push({ client: office, name, page, hash: created.body.content_hash });
  }
  return { slug: ws.slug, workspaceId: ws.id, owner: people[0]!, people };
}

export interface Tally {
  requests: number;
  byStatus: Map<number, number>;
  limited: string[];
  latencies: number[];
}

export const newTally = (): Tally => ({ requests: 0, byStatus: new Map(), limited: [], latencies: [] });

async function counted(tally: Tally, label: string, send: () => Promise<ApiResponse<any>>): Promise<ApiResponse<any>> {
  const t0 = performance.now();
  const r = await send();
  tally.latencies.push(performance.now() - t0);
  tally.requests++;
  tally.byStatus.set(r.status, (tally.byStatus.get(r.status) ?? 0) + 1);
  if (r.status === 429) tally.limited.push(label);
  return r;
}

/** One boot (a reload or a new tab) of the app, the requests in the order the app makes them. */
export async function boot(p: Person, team: Team, tally: Tally): Promise<void> {
  const r = await counted(tally, "refresh", () => p.client.post("/api/auth/refresh", {}, { token: null }));
  if (r.status === 200) p.client.token = r.body.access_token;
  await counted(tally, "me", () => p.client.get("/api/auth/me"));
  await counted(tally, "ws-token", () => p.client.post("/api/auth/ws-token"));
  await counted(tally, "workspaces", () => p.client.get("/api/v1/workspaces"));
  await counted(tally, "tree", () => p.client.get(`/api/v1/content/${team.slug}/tree`));
  const page = await counted(tally, "page", () => p.client.get(`/api/v1/content/${team.slug}/${p.page}`));
  if (page.status === 200) p.hash = page.body.content_hash;
}

/** One autosave of the person's page. */
export async function save(p: Person, team: Team, tally: Tally, n: number): Promise<void> {
  const r = await counted(tally, "save", () =>
    p.client.put(`/api/v1/content/${team.slug}/${p.page}`, { body: `Start.\n\nEdit number ${n} by ${p.name}.\n`, lastKnownHash: p.hash }),
  );
  if (r.status === 200) p.hash = r.body.content_hash;
}
