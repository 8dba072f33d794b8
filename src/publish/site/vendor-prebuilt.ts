/**
 * The site's vendor files embedded in the compiled binary: file name under `_quire/` → the path
 * of the embedded file. From source this is null (vendor.ts makes them on first use); `build.ts`
 * replaces this module through `vendorPlugin(dir)` (vendor.ts).
 */
export const VENDOR: Record<string, string> | null = null as Record<string, string> | null;
