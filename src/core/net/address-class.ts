import { isIP } from "node:net";

/**
 * Whether an IP address is one a git remote must not reach: anything that is not a public unicast
 * address. IPv6 forms that carry an IPv4 address (mapped, compatible, SIIT, NAT64, 6to4) are judged
 * by the IPv4 address they lead to; everything outside global unicast (2000::/3) is refused.
 * Input is what `new URL()` and the resolver produce (already normalised), but any spelling
 * `isIP` accepts is handled; anything that is not an IP address counts as private.
 */
export function isPrivateAddress(address: string): boolean {
  const host = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const v = isIP(host);
  if (v === 4) return privateV4(v4Octets(host));
  if (v !== 6) return true;
  const g = v6Groups(host);
  if (g === null) return true;
  const embedded = embeddedV4(g);
  if (embedded !== undefined) return embedded === null || privateV4(embedded);
  if ((g[0]! & 0xe000) !== 0x2000) return true; // outside 2000::/3: loopback, unspecified, ULA, link-local, multicast, 64:ff9b:1::/48...
  if (g[0] === 0x2001 && g[1]! < 0x0200) return true; // 2001::/23 IETF protocol assignments (Teredo 2001::/32, ORCHID, benchmarking)
  if (g[0] === 0x2001 && g[1] === 0x0db8) return true; // documentation
  if (g[0] === 0x3fff && g[1]! < 0x1000) return true; // 3fff::/20 documentation
  return false;
}

function v4Octets(address: string): number[] {
  return address.split(".").map(Number);
}

function privateV4(o: number[]): boolean {
  const [a, b, c] = o as [number, number, number, number];
  return (
    a === 0 || // "this network"
    a === 10 ||
    (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
    a === 127 ||
    (a === 169 && b === 254) || // link-local, cloud metadata
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 0 && (c === 0 || c === 2)) || // IETF protocol assignments, TEST-NET-1
    (a === 192 && b === 88 && c === 99) || // 6to4 relay anycast
    (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    (a === 198 && b === 51 && c === 100) || // TEST-NET-2
    (a === 203 && b === 0 && c === 113) || // TEST-NET-3
    a >= 224 // multicast, reserved, broadcast
  );
}

/** The eight 16-bit groups of an IPv6 address (with `::` expanded and a dotted tail converted), or null. */
function v6Groups(address: string): number[] | null {
  let text = address.toLowerCase();
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const o = v4Octets(dotted[1]!);
    text = text.slice(0, -dotted[1]!.length) + `${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (s: string) => (s === "" ? [] : s.split(":").map((h) => parseInt(h, 16)));
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  const fill = 8 - head.length - tail.length;
  if (halves.length === 1 ? head.length !== 8 : fill < 0) return null;
  const groups = [...head, ...Array<number>(halves.length === 2 ? fill : 0).fill(0), ...tail];
  return groups.some((n) => !Number.isInteger(n) || n < 0 || n > 0xffff) ? null : groups;
}

/**
 * The IPv4 address an IPv6 address stands for, when it is one of the forms that reach IPv4:
 * undefined when it is none of them; null when it embeds one but is refused as a whole.
 */
function embeddedV4(g: number[]): number[] | null | undefined {
  const v4 = (hi: number, lo: number) => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
  const zeros = (from: number, to: number) => g.slice(from, to).every((n) => n === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return v4(g[6]!, g[7]!); // ::ffff:a.b.c.d mapped
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return v4(g[6]!, g[7]!); // ::ffff:0:a.b.c.d (SIIT)
  if (zeros(0, 6)) return g[6] === 0 && g[7]! <= 1 ? null : v4(g[6]!, g[7]!); // :: and ::1 themselves; ::a.b.c.d compatible
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return v4(g[6]!, g[7]!); // 64:ff9b::/96 NAT64
  if (g[0] === 0x2002) return v4(g[1]!, g[2]!); // 6to4
  return undefined;
}
