/**
 * Build identity. `bun run build` replaces these through --define so the compiled binary carries
 * them; from source they fall back to package.json and "dev".
 */
import pkg from "../package.json" with { type: "json" };

declare const QUIRE_BUILD_VERSION: string | undefined;
declare const QUIRE_BUILD_COMMIT: string | undefined;
declare const QUIRE_BUILD_DATE: string | undefined;

export const VERSION: string = `v${typeof QUIRE_BUILD_VERSION === "string" ? QUIRE_BUILD_VERSION : pkg.version}`;
export const COMMIT: string = typeof QUIRE_BUILD_COMMIT === "string" ? QUIRE_BUILD_COMMIT : "dev";
export const BUILD_DATE: string = typeof QUIRE_BUILD_DATE === "string" ? QUIRE_BUILD_DATE : "unknown";
