import { createHash } from "node:crypto";
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { crc32, deflateSync } from "node:zlib";

/** Longest stretch of compression between two turns of the event loop (large packs only). */
const SLICE_MS = 4;
const PACK_TYPE_BLOB = 3;
/**
 * Up to this many bytes a pack is compressed and written in one go: a few milliseconds, and
 * not waiting for the event loop, which a burst of saves keeps busy (each turn ~100 ms there).
 */
const SYNC_PACK_BYTES = 1024 * 1024;
/** Version 2 index offsets are 31-bit; a batch that could exceed it goes out as loose objects. */
export const MAX_PACK_BYTES = 1 << 30;

/**
 * Writes many blobs as one packfile (version 2, no deltas) with its version 2 index, instead of one
 * loose object file each. Creating a file is what a blob costs on a busy file system (~1 ms each
 * here, docs/decisions/git-commits.md §13), so a commit carrying a burst of saves would otherwise
 * spend most of its time creating objects. Git, isomorphic-git and every clone read packs and
 * loose objects alike; duplicates of objects stored elsewhere are allowed.
 *
 * The pack is renamed into place before its index: a process killed in between leaves a pack
 * without an index, which git ignores (and `git gc` removes), never an index without its pack.
 * Returns each blob's object id, in the order given.
 */
export async function writeBlobPack(gitdir: string, blobs: Uint8Array[]): Promise<string[]> {
  const ids = blobs.map((blob) => {
    const h = createHash("sha1");
    h.update(`blob ${blob.byteLength}\0`);
    h.update(blob);
    return h.digest("hex");
  });
  const unique = new Map<string, Uint8Array>();
  blobs.forEach((blob, i) => unique.set(ids[i]!, blob));
  const total = blobs.reduce((n, b) => n + b.byteLength, 0);
  const quick = total <= SYNC_PACK_BYTES;
  // Compressed here, a slice at a time: Bun's asynchronous deflate of thousands of blobs at once
  // held the event loop for a second (3,000 pages); slices of ~4 ms let requests through.
  const entries: Array<{ oid: string; bytes: Buffer; crc: number }> = [];
  let sliceStart = performance.now();
  for (const [oid, blob] of unique) {
    const bytes = Buffer.concat([entryHeader(PACK_TYPE_BLOB, blob.byteLength), deflateSync(blob)]);
    entries.push({ oid, bytes, crc: crc32(bytes) });
    if (!quick && performance.now() - sliceStart > SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
  const head = Buffer.alloc(12);
  head.write("PACK", 0, "latin1");
  head.writeUInt32BE(2, 4);
  head.writeUInt32BE(entries.length, 8);
  const parts: Buffer[] = [head];
  let offset = 12;
  const offsets = new Map<string, number>();
  for (const e of entries) {
    offsets.set(e.oid, offset);
    parts.push(e.bytes);
    offset += e.bytes.byteLength;
  }
  const body = Buffer.concat(parts);
  const packSum = createHash("sha1").update(body).digest();
  const pack = Buffer.concat([body, packSum]);

  const sorted = [...entries].sort((a, b) => (a.oid < b.oid ? -1 : a.oid > b.oid ? 1 : 0));
  const fanout = Buffer.alloc(256 * 4);
  for (let byte = 0, i = 0; byte < 256; byte++) {
    while (i < sorted.length && parseInt(sorted[i]!.oid.slice(0, 2), 16) <= byte) i++;
    fanout.writeUInt32BE(i, byte * 4);
  }
  const idxHead = Buffer.from([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]);
  const names = Buffer.concat(sorted.map((e) => Buffer.from(e.oid, "hex")));
  const crcs = Buffer.alloc(sorted.length * 4);
  const offs = Buffer.alloc(sorted.length * 4);
  sorted.forEach((e, i) => {
    crcs.writeUInt32BE(e.crc >>> 0, i * 4);
    offs.writeUInt32BE(offsets.get(e.oid)!, i * 4);
  });
  const idxBody = Buffer.concat([idxHead, fanout, names, crcs, offs, packSum]);
  const idx = Buffer.concat([idxBody, createHash("sha1").update(idxBody).digest()]);

  const dir = join(gitdir, "objects", "pack");
  mkdirSync(dir, { recursive: true });
  const name = `pack-${packSum.toString("hex")}`;
  const tmp = `.tmp-${process.pid}-${name}`;
  try {
    if (quick) {
      writeFileSync(join(dir, `${tmp}.pack`), pack, { mode: 0o444 });
      writeFileSync(join(dir, `${tmp}.idx`), idx, { mode: 0o444 });
      renameSync(join(dir, `${tmp}.pack`), join(dir, `${name}.pack`));
      renameSync(join(dir, `${tmp}.idx`), join(dir, `${name}.idx`));
    } else {
      await writeFile(join(dir, `${tmp}.pack`), pack, { mode: 0o444 });
      await writeFile(join(dir, `${tmp}.idx`), idx, { mode: 0o444 });
      await rename(join(dir, `${tmp}.pack`), join(dir, `${name}.pack`));
      await rename(join(dir, `${tmp}.idx`), join(dir, `${name}.idx`));
    }
  } catch (error) {
    // A full disk: no half-written pack stays behind to take the space the retry needs.
    rmSync(join(dir, `${tmp}.pack`), { force: true });
    rmSync(join(dir, `${tmp}.idx`), { force: true });
    throw error;
  }
  return ids;
}

/** An object's header in a pack: type and size, the size in 7-bit groups, lowest first. */
function entryHeader(type: number, size: number): Buffer {
  const bytes: number[] = [];
  let byte = (type << 4) | (size & 0x0f);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(byte | 0x80);
    byte = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  bytes.push(byte);
  return Buffer.from(bytes);
}
