/**
 * The hash SHA256SUMS (the `sha256sum` format: `<hex>  <name>`, or `<hex> *<name>` in binary mode)
 * gives for `name`; undefined when the file does not list it (a checksum file of another version).
 */
export function checksumFor(sums: string, name: string): string | undefined {
  for (const line of sums.split(/\r?\n/)) {
    const m = /^([0-9a-fA-F]{64}) [ *](.+)$/.exec(line.trimEnd());
    if (m && m[2] === name) return m[1]!.toLowerCase();
  }
  return undefined;
}
