/**
 * `quire open [--no-browser]`: opens the confirmed instance's URL with the platform's opener
 * (xdg-open, open, or url.dll's handler through rundll32 on Windows), or prints it. Exit 0 done; 1 lock held but
 * identity unconfirmed; 3 nothing running. Where no opener exists, nothing is started and the URL
 * is printed.
 */
import { defineCommand } from "citty";
import { probeInstance } from "../ops/instance-probe.ts";
import { CommandError } from "./exit.ts";
import { installedServiceStart } from "../service/manager.ts";
import { dataDirArg, dataDirFrom } from "./shared.ts";

/** The opener command for a URL on this platform, or null when the system has none. */
export function openerFor(url: string, platform: NodeJS.Platform = process.platform, which = Bun.which): string[] | null {
  if (platform === "darwin") return which("open") ? ["open", url] : null;
  // Not `cmd /c start`: cmd.exe would read a `&` in the address as the end of the command.
  if (platform === "win32") return which("rundll32") ? ["rundll32", "url.dll,FileProtocolHandler", url] : null;
  const opener = which("xdg-open");
  return opener ? [opener, url] : null;
}

export const openCommand = defineCommand({
  meta: {
    name: "open",
    description: "Open the running server in the browser, or print its URL (exit 0 done, 1 unconfirmed, 3 nothing running)",
  },
  args: {
    browser: { type: "boolean", default: true, description: "Start the browser (--no-browser only prints the URL)" },
    json: { type: "boolean", description: "Print {url, opened} as one JSON object" },
    ...dataDirArg,
  },
  async run({ args }) {
    const { path: dataDir } = dataDirFrom(args);
    const probe = await probeInstance(dataDir);
    if (probe.state === "none") {
      // Installed as a service but stopped: the service manager should start it, not a second `serve`.
      const service = installedServiceStart();
      const how = service ? `${service.start} (quire is installed as a service: ${service.path})` : "quire serve";
      throw new CommandError(`nothing is running on ${dataDir}; start it with: ${how}`, 3);
    }
    if (probe.state === "unconfirmed") throw new CommandError(`identity unconfirmed: ${probe.reason}`, 1);
    const url = probe.runstate.url;
    const command = args.browser ? openerFor(url) : null;
    if (command) {
      // Detached: the browser outlives this command, and its output is not ours to print.
      const child = Bun.spawn(command, { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
      child.unref();
      process.stdout.write(args.json ? JSON.stringify({ url, opened: true }) + "\n" : `opened ${url}\n`);
      return;
    }
    if (args.browser) process.stderr.write("quire: no browser opener found (xdg-open); open the address yourself\n");
    process.stdout.write(args.json ? JSON.stringify({ url, opened: false }) + "\n" : `${url}\n`);
  },
});
