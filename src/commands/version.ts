import { defineCommand } from "citty";
import { dataDirArg } from "./shared.ts";
import { BUILD_DATE, COMMIT, VERSION } from "../version.ts";

export const versionCommand = defineCommand({
  meta: { name: "version", description: "Print version, commit and build date" },
  // Accepted (and unused) like on every command, so scripts can pass it uniformly.
  args: { ...dataDirArg },
  run() {
    process.stdout.write(`quire ${VERSION}\ncommit: ${COMMIT}\nbuilt: ${BUILD_DATE}\n`);
  },
});
