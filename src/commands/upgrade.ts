/**
 * `quire upgrade [--check] [--to vX.Y.Z] [--json]`: replaces this executable with another release
 * from the release location (QUIRE_RELEASE_URL), verified against its SHA256SUMS, then restarts the
 * service that runs it when one is installed. The logic is src/releases/upgrade.ts.
 */
import { defineCommand } from "citty";
import { probeInstance } from "../ops/instance-probe.ts";
import { releaseSource } from "../releases/location.ts";
import { restartInstalledService } from "../service/manager.ts";
import { planUpgrade, refusal, replaceBinary } from "../releases/upgrade.ts";
import { VERSION } from "../version.ts";
import { CommandError } from "./exit.ts";
import { dataDirArg, dataDirFrom } from "./shared.ts";

export const upgradeCommand = defineCommand({
  meta: { name: "upgrade", description: "Replace this executable with the newest release (or --to one), verified against SHA256SUMS" },
  args: {
    check: { type: "boolean", description: "Only say whether a newer release exists; change nothing" },
    to: { type: "string", valueHint: "vX.Y.Z", description: "Install this release instead of the newest (an older one only if the data allows)" },
    json: { type: "boolean", description: "Print the outcome as one JSON object" },
    ...dataDirArg,
  },
  async run({ args }) {
    const source = releaseSource();
    const { path: dataDir } = dataDirFrom(args);
    const plan = await planUpgrade(source, { current: VERSION, ...(args.to !== undefined ? { to: args.to } : {}), dataDir });
    const refused = refusal(plan);
    const out = (human: string, json: Record<string, unknown>) =>
      process.stdout.write(args.json ? JSON.stringify({ current: plan.current, target: plan.target, ...json }) + "\n" : human + "\n");

    if (args.check) {
      const available = plan.direction === "upgrade";
      out(
        available
          ? `quire ${plan.current} is running; ${plan.target} is available (quire upgrade)${refused ? `, but: ${refused}` : ""}`
          : `quire ${plan.current} is up to date (the ${plan.folder === "latest" ? "newest" : "requested"} release is ${plan.target})`,
        { available, refused },
      );
      return;
    }
    if (plan.direction === "same" || (plan.direction === "downgrade" && args.to === undefined)) {
      out(`quire ${plan.current} is up to date (the newest release is ${plan.target})`, { upgraded: false });
      return;
    }
    if (refused) throw new CommandError(refused, 1);
    const binary = installedBinary();
    const got = await replaceBinary(plan, source, binary, (step, detail) => {
      if (!args.json && step === "verified") process.stderr.write(`Checksum verified: ${detail}\n`);
    });
    const restart = await restartInstalledService(binary);
    // Without a service to restart, a server started by hand keeps running the old code: say which.
    const running = restart === null ? await probeInstance(dataDir) : null;
    const server =
      running?.state === "confirmed"
        ? ` The server on ${dataDir} (pid ${running.runstate.pid}) still runs ${running.version}: restart it to run ${plan.target} (quire stop, then quire serve).`
        : restart === null
          ? " A server started before this keeps the old version until it is restarted."
          : "";
    out(`Replaced ${binary}: quire ${plan.current} → ${plan.target}.${restart ? ` ${restart}` : ""}${server}`, {
      upgraded: true,
      binary,
      sha256: got.sha256,
      service: restart,
      running_server: running?.state === "confirmed" ? { pid: running.runstate.pid, version: running.version } : null,
    });
  },
});

/** The executable to replace: this one, when it is a compiled quire (not `bun src/cli.ts`). */
function installedBinary(): string {
  const compiled = Bun.main.startsWith("/$bunfs/") || /^[A-Z]:[\\/]~BUN[\\/]/i.test(Bun.main);
  if (!compiled) {
    throw new CommandError("quire upgrade replaces an installed quire executable; this one runs from source (update the checkout instead)", 1);
  }
  return process.execPath;
}

