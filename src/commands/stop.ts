/**
 * `quire stop [--force]`: graceful shutdown through the control endpoint, SIGTERM to a verified
 * instance when it is unavailable, a wait of up to 30 s, and with --force a kill after the full
 * wait. Exit 0 stopped or nothing running; 1 did not stop in time, identity unconfirmed, or could
 * not signal safely. The logic is src/ops/stop-instance.ts.
 */
import { defineCommand } from "citty";
import { stopInstance } from "../ops/stop-instance.ts";
import { CommandError } from "./exit.ts";
import { dataDirArg, dataDirFrom } from "./shared.ts";

export const stopCommand = defineCommand({
  meta: {
    name: "stop",
    description: "Stop the server running on the data directory (waits up to 30 s; exit 0 stopped or nothing running, 1 otherwise)",
  },
  args: {
    force: { type: "boolean", description: "Kill the verified instance if it has not stopped after the full 30 s" },
    json: { type: "boolean", description: "Print the outcome as one JSON object" },
    ...dataDirArg,
  },
  async run({ args }) {
    const { path: dataDir } = dataDirFrom(args);
    const outcome = await stopInstance(dataDir, { force: args.force === true });
    const ok = outcome.result === "stopped" || outcome.result === "not_running";
    if (args.json) {
      process.stdout.write(JSON.stringify(outcome) + "\n");
      if (!ok) process.exitCode = 1;
      return;
    }
    if (!ok) throw new CommandError(outcome.message, 1);
    process.stdout.write(outcome.message + "\n");
  },
});
