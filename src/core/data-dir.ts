import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

type DataDirRule = "flag" | "env" | "legacy" | "os-default";
export interface ResolvedDataDir {
  path: string;
  rule: DataDirRule;
}

/**
 * `--data-dir` > `DATA_DIR` > an existing `./.quire` (older install, used in place) > the OS
 * per-user data location. The rule that decided is kept so `doctor` and `status` can say it.
 */
export function resolveDataDir(
  flag: string | undefined,
  env: Record<string, string | undefined> = process.env,
  cwd: string = process.cwd(),
  platform: NodeJS.Platform = process.platform,
): ResolvedDataDir {
  if (flag && flag.trim() !== "") return { path: resolve(cwd, flag), rule: "flag" };
  const fromEnv = env.DATA_DIR?.trim();
  if (fromEnv) return { path: resolve(cwd, fromEnv), rule: "env" };
  const legacy = join(cwd, ".quire");
  if (existsSync(legacy) && statSync(legacy).isDirectory()) return { path: legacy, rule: "legacy" };
  return { path: osDataDir(env, platform), rule: "os-default" };
}

function osDataDir(env: Record<string, string | undefined>, platform: NodeJS.Platform): string {
  const home = env.HOME ?? homedir();
  if (platform === "darwin") return join(home, "Library", "Application Support", "quire");
  if (platform === "win32") return join(env.LOCALAPPDATA ?? join(home, "AppData", "Local"), "quire");
  return join(env.XDG_DATA_HOME?.trim() || join(home, ".local", "share"), "quire");
}
