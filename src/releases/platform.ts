import { readFileSync } from "node:fs";
import { ReleaseError } from "./errors.ts";

/**
 * This machine's release file suffix (docs/decisions/releases.md): `<os>-<arch>[.exe]` as
 * `bun run release` names them. x64 Linux without AVX2 takes the baseline build, as install.sh does.
 */
export function releasePlatform(): string {
  const arch = process.arch === "x64" ? "x64" : process.arch === "arm64" ? "arm64" : null;
  if (process.platform === "linux" && arch) return arch === "x64" && !hasAvx2() ? "linux-x64-baseline" : `linux-${arch}`;
  if (process.platform === "darwin" && arch) return `darwin-${arch}`;
  if (process.platform === "win32" && arch === "x64") return "windows-x64.exe";
  throw new ReleaseError(`there is no release for ${process.platform} on ${process.arch}`);
}

function hasAvx2(): boolean {
  try {
    return /\bavx2\b/.test(readFileSync("/proc/cpuinfo", "utf8"));
  } catch {
    return true; // no /proc: the ordinary build, as on every x64 CPU since 2013
  }
}

/** The release file for a version (`v1.2.3`) on this machine: quire-1.2.3-linux-x64. */
export function releaseFileName(version: string, platform = releasePlatform()): string {
  return `quire-${version.replace(/^v/, "")}-${platform}`;
}
