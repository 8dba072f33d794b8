import { defineCommand } from "citty";
import { assetFile, assetsAreEmbedded, listAssets } from "../core/assets.ts";
import { BUILD_DATE, COMMIT, VERSION } from "../version.ts";
import { dataDirArg } from "./shared.ts";

export const versionCommand = defineCommand({
  meta: { name: "version", description: "Print version, commit and build date" },
  args: {
    assets: { type: "boolean", description: "Also list the assets this executable carries, with their sizes" },
    json: { type: "boolean", description: "Print version, commit and build date as one JSON object" },
    // Accepted (and unused) like on every command, so scripts can pass it uniformly.
    ...dataDirArg,
  },
  run({ args }) {
    if (args.json) {
      process.stdout.write(JSON.stringify({ version: VERSION, commit: COMMIT, built: BUILD_DATE }) + "\n");
      return;
    }
    process.stdout.write(`quire ${VERSION}\ncommit: ${COMMIT}\nbuilt: ${BUILD_DATE}\n`);
    if (!args.assets) return;
    const paths = listAssets();
    process.stdout.write(`assets: ${paths.length} (${assetsAreEmbedded() ? "embedded" : "from source"})\n`);
    for (const path of paths) process.stdout.write(`  ${path} ${assetFile(path)?.size ?? 0}\n`);
  },
});
