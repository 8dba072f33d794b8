/**
 * `quire status [--json]`: read-only. Exit 0 running and confirmed; 3 nothing running; 1 the data
 * directory is locked but the holder's identity is unconfirmed (instance-probe.ts says why).
 */
import { defineCommand } from "citty";
import { probeInstance } from "../ops/instance-probe.ts";
import { CommandError } from "./exit.ts";
import { dataDirArg, dataDirFrom } from "./shared.ts";

export const statusCommand = defineCommand({
  meta: {
    name: "status",
    description: "Report whether a Quire server runs on the data directory (exit 0 running, 3 nothing running, 1 unconfirmed)",
  },
  args: {
    json: { type: "boolean", description: "Print one JSON object" },
    ...dataDirArg,
  },
  async run({ args }) {
    const { path: dataDir, rule } = dataDirFrom(args);
    const probe = await probeInstance(dataDir);
    const rs = probe.runstate;
    const confirmed = probe.state === "confirmed";
    const report = {
      running: probe.state !== "none",
      confirmed,
      pid: probe.state === "none" ? null : (rs?.pid ?? null),
      port: probe.state === "none" ? null : (rs?.port ?? null),
      url: probe.state === "none" ? null : (rs?.url ?? null),
      version: confirmed ? probe.version : null,
      instance_id: confirmed ? probe.runstate.instance_id : null,
      data_dir: dataDir,
      data_dir_rule: rule,
      started_at: probe.state === "none" ? null : (rs?.started_at ?? null),
      ...(probe.state === "unconfirmed" ? { reason: probe.reason } : {}),
    };
    if (args.json) {
      process.stdout.write(JSON.stringify(report) + "\n");
    } else if (probe.state === "confirmed") {
      process.stdout.write(
        `running: ${report.url} (pid ${report.pid}, version ${report.version}, since ${report.started_at})\n` +
          `instance: ${report.instance_id}\ndata directory: ${dataDir} (${rule})\n`,
      );
    } else if (probe.state === "none") {
      process.stdout.write(`not running (data directory: ${dataDir}, ${rule})\n`);
    }
    if (probe.state === "none") process.exitCode = 3;
    if (probe.state === "unconfirmed") {
      if (args.json) process.exitCode = 1;
      else throw new CommandError(`identity unconfirmed: ${probe.reason}`, 1);
    }
  },
});
