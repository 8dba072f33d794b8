/**
 * docs/architecture.md §10's team measurement, in real time: ten people of one workspace behind one office
 * address edit for a minute at the app's own cadence (an autosave every 2 s, a reload every
 * 20 s, each reload being the app's boot requests), while one API-key script of the same
 * organization writes 60 times and reads 300 times in that minute. Prints the requests sent,
 * the 429s seen by each, and save latencies. `bun bench/team-editing.ts [seconds]` (default 60).
 */
import { percentile, ms, printTable, startServer } from "./harness.ts";
import { boot, buildTeam, newTally, save } from "../test/helpers/team.ts";
import { Client } from "../test/helpers/client.ts";

const seconds = Number(process.argv[2] ?? 60);
const server = await startServer({ TRUST_PROXY: "true", ARGON2_MEMORY: "8192", ARGON2_TIME: "1" });
try {
  const team = await buildTeam(server.base, 10, "192.0.2.50");
  // Setup went through the auth limit from ten addresses; the measured minute starts afresh.
  await Bun.sleep(61_000);
  const tally = newTally();
  const saveTally = newTally();
  const end = Date.now() + seconds * 1000;
  const people = team.people.map(async (p, i) => {
    await Bun.sleep(i * 200); // people do not start in the same millisecond
    let n = 0;
    let nextReload = Date.now() + 20_000;
    await boot(p, team, tally);
    while (Date.now() < end) {
      await Bun.sleep(2000);
      await save(p, team, saveTally, n++);
      if (Date.now() >= nextReload) {
        await boot(p, team, tally);
        nextReload += 20_000;
      }
    }
  });
  const key = (await team.owner.client.post("/api/v1/api-keys", { name: "script" })).body.key as string;
  const script = new Client(server.base, "198.51.100.9").withToken(key);
  const scriptTally = { ok: 0, limited: 0 };
  const scriptRun = (async () => {
    const path = `/api/v1/content/${team.slug}/script.md`;
    let hash = (await script.post(path, { title: "Script", body: "0\n" })).body.content_hash as string;
    const gap = (seconds * 1000) / 360;
    for (let i = 1; i < 360 && Date.now() < end; i++) {
      const r = i % 6 === 0 ? await script.put(path, { body: `${i}\n`, lastKnownHash: hash }) : await script.get(path);
      if (r.status === 200 && i % 6 === 0) hash = r.body.content_hash;
      if (r.status === 429) scriptTally.limited++;
      else if (r.status < 300) scriptTally.ok++;
      await Bun.sleep(gap);
    }
  })();
  await Promise.all([...people, scriptRun]);
  const all = tally.requests + saveTally.requests;
  printTable(`ten people editing for ${seconds} s behind one address, plus one API-key script`, [
    { measure: "app requests (boots + autosaves)", value: String(all), note: `${saveTally.requests} saves, ${tally.requests} boot requests` },
    { measure: "429s seen by the people", value: String(tally.limited.length + saveTally.limited.length), note: "docs/architecture.md §10: must be 0" },
    { measure: "other errors seen by the people", value: String([...tally.byStatus, ...saveTally.byStatus].filter(([s]) => s >= 400 && s !== 429).reduce((a, [, n]) => a + n, 0)) },
    { measure: "save p50 / p99", value: `${ms(percentile(saveTally.latencies, 50))} / ${ms(percentile(saveTally.latencies, 99))}` },
    { measure: "API-key script: answered / 429", value: `${scriptTally.ok} / ${scriptTally.limited}`, note: "60 writes + 300 reads a minute: within the figures of docs/interfaces.md §8" },
  ]);
} finally {
  await server.stop();
}
