import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { boot, buildTeam, newTally, save, type Team } from "../helpers/team.ts";

/**
 * docs/architecture.md §10: ten people of one workspace editing at once in the web app never see a 429,
 * while one script with an API key still gets the figures of docs/interfaces.md §8 (and no more). A full minute of
 * the app's own traffic is sent inside one rate-limit window, as fast as the server answers: a
 * harder test than the same minute in real time (bench/team-editing.ts measures that one).
 */
describe("a team of ten editing at once, behind one office address", () => {
  let server: TestServer;
  let team: Team;
  beforeAll(async () => {
    server = await startTestServer();
    team = await buildTeam(server.url, 10, "192.0.2.50");
    server.services.rateLimiter.reset(); // the measurement starts with a fresh window
  }, 60_000);
  afterAll(() => server.close());

  test("a minute of autosaves (one every 2 s) and three reloads each: no 429", async () => {
    const tally = newTally();
    await Promise.all(
      team.people.map(async (p) => {
        for (let reload = 0; reload < 3; reload++) {
          await boot(p, team, tally);
          for (let i = 0; i < 10; i++) await save(p, team, tally, reload * 10 + i);
        }
      }),
    );
    expect(tally.limited).toEqual([]);
    expect(tally.requests).toBe(10 * 3 * (6 + 10));
    expect([...tally.byStatus.keys()].filter((s) => s >= 400)).toEqual([]);
  }, 60_000);

  test("meanwhile one API-key script of the organization gets the 60 writes and 300 reads a minute of docs/interfaces.md §8, then 429", async () => {
    const key = (await team.owner.client.post("/api/v1/api-keys", { name: "sync script" })).body.key as string;
    const script = new Client(server.url, "198.51.100.9").withToken(key);
    const path = `/api/v1/content/${team.slug}/script-page.md`;
    const created = await script.post(path, { title: "Script page", body: "0\n" });
    expect(created.status).toBe(201);
    let hash = created.body.content_hash as string;
    for (let i = 1; i < 60; i++) {
      const r = await script.put(path, { body: `${i}\n`, lastKnownHash: hash });
      expect(r.status).toBe(200);
      hash = r.body.content_hash;
    }
    const over = await script.put(path, { body: "61\n", lastKnownHash: hash });
    expect(over.status).toBe(429);
    for (let i = 0; i < 300; i++) expect((await script.get(path)).status).toBe(200);
    expect((await script.get(path)).status).toBe(429);
    // The people editing in the app are not charged for the script.
    const tally = newTally();
    await save(team.people[3]!, team, tally, 99);
    expect(tally.limited).toEqual([]);
  }, 60_000);
});
