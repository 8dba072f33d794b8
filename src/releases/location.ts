import type { UpgradeSource } from "./upgrade.ts";

declare const QUIRE_BUILD_RELEASE_URL: string | undefined;

/**
 * Where releases are read from: QUIRE_RELEASE_URL, else the location the executable was built for
 * (`bun run release` with QUIRE_RELEASE_URL set bakes it in). Like every outbound URL it may not
 * be on a private address unless QUIRE_RELEASE_ALLOW_PRIVATE=true.
 */
export function releaseSource(env: Record<string, string | undefined> = process.env): UpgradeSource {
  const built = typeof QUIRE_BUILD_RELEASE_URL === "string" ? QUIRE_BUILD_RELEASE_URL : "";
  return {
    releaseUrl: env.QUIRE_RELEASE_URL || built,
    allowPrivate: env.QUIRE_RELEASE_ALLOW_PRIVATE === "true",
  };
}
