/** Release versions: `v<major>.<minor>.<patch>` with an optional `-<pre-release>`. */
const VERSION = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?$/;

/** `v1.2.3` for `1.2.3` or `v1.2.3`; undefined for anything else (it may reach a URL: nothing else may). */
export function normalizeVersion(text: string): string | undefined {
  const m = VERSION.exec(text.trim());
  return m ? `v${m[1]}.${m[2]}.${m[3]}${m[4] ? `-${m[4]}` : ""}` : undefined;
}

/** Negative when a is older than b, 0 when equal, positive when newer (a pre-release before its release). */
export function compareVersions(a: string, b: string): number {
  const pa = VERSION.exec(a);
  const pb = VERSION.exec(b);
  if (!pa || !pb) return a.localeCompare(b);
  for (let i = 1; i <= 3; i++) {
    const d = Number(pa[i]) - Number(pb[i]);
    if (d !== 0) return d;
  }
  if (pa[4] === pb[4]) return 0;
  if (!pa[4]) return 1;
  if (!pb[4]) return -1;
  return pa[4].localeCompare(pb[4], "en", { numeric: true });
}
