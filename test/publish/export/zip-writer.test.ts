import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { unzipSync } from "fflate";
import { ZipWriter } from "../../../src/publish/export/zip-writer.ts";
import { tempDir } from "../../helpers/server.ts";

const build = () => {
  const zip = new ZipWriter();
  zip.add("guide/intro.html", "<p>Grüße</p>".repeat(100));
  zip.add("assets/logo.png", new Uint8Array([137, 80, 78, 71]));
  zip.add("empty.md", "");
  zip.end();
  return zip.take();
};

test("the ZIP reads back byte for byte (fflate and Info-ZIP's unzip -t), with one fixed timestamp, identically every time", async () => {
  const bytes = build();
  const files = unzipSync(new Uint8Array(bytes));
  expect(new TextDecoder().decode(files["guide/intro.html"]!)).toBe("<p>Grüße</p>".repeat(100));
  expect([...files["assets/logo.png"]!]).toEqual([137, 80, 78, 71]);
  expect(files["empty.md"]!.length).toBe(0);
  expect(Buffer.compare(build(), bytes)).toBe(0);
  if (Bun.which("unzip")) {
    const dir = tempDir("quire-zip-");
    writeFileSync(join(dir, "t.zip"), bytes);
    const check = Bun.spawnSync(["unzip", "-t", join(dir, "t.zip")]);
    expect(check.stdout.toString()).toContain("No errors detected");
    expect(Bun.spawnSync(["zipinfo", join(dir, "t.zip")]).stdout.toString()).toContain("-rw-r--r--  2.0 unx     1400 b- defN 00-Jan-01 00:00 guide/intro.html");
  }
});

test("more than 65,535 entries: ZIP64 end records, read back by Info-ZIP's unzip -t and zipinfo", () => {
  const zip = new ZipWriter();
  const count = 70_000;
  for (let i = 0; i < count; i++) zip.add(`pages/${String(i).padStart(5, "0")}.md`, i % 1000 === 0 ? `page ${i}\n`.repeat(20) : "");
  zip.end();
  const bytes = zip.take();
  // The classic end record says "see ZIP64" (0xFFFF entries); the ZIP64 record before it holds the count.
  const tail = new DataView(bytes.buffer, bytes.byteOffset + bytes.length - 22, 22);
  expect(tail.getUint16(10, true)).toBe(0xffff);
  const zip64 = new DataView(bytes.buffer, bytes.byteOffset + bytes.length - 22 - 20 - 56, 56);
  expect(zip64.getUint32(0, true)).toBe(0x06064b50);
  expect(Number(zip64.getBigUint64(32, true))).toBe(count);
  if (Bun.which("unzip")) {
    const dir = tempDir("quire-zip64-");
    writeFileSync(join(dir, "big.zip"), bytes);
    const check = Bun.spawnSync(["unzip", "-tq", join(dir, "big.zip")]);
    expect(check.stdout.toString()).toContain("No errors detected");
    const info = Bun.spawnSync(["zipinfo", "-t", join(dir, "big.zip")]).stdout.toString();
    expect(info).toContain(`${count} files`);
    const one = Bun.spawnSync(["unzip", "-p", join(dir, "big.zip"), "pages/69000.md"]).stdout.toString();
    expect(one).toBe("page 69000\n".repeat(20));
  }
}, 30_000);

test("offsets past 4 GiB go in the central record's ZIP64 extra field and the ZIP64 end record", () => {
  const zip = new ZipWriter();
  const start = 2 ** 32 + 10; // as if 4 GiB had been written before this entry
  zip.bytes = start;
  zip.add("late.html", "<p>late</p>");
  zip.end();
  const bytes = zip.take();
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const central = 30 + "late.html".length + ZipWriter.prepare("late.html", "<p>late</p>").body.length;
  expect(v.getUint32(central, true)).toBe(0x02014b50);
  expect(v.getUint16(central + 6, true)).toBe(45); // version needed: 4.5
  expect(v.getUint32(central + 42, true)).toBe(0xffffffff);
  expect(v.getUint16(central + 30, true)).toBe(12); // extra: id, size, one 8-byte value
  const extra = central + 46 + "late.html".length;
  expect(v.getUint16(extra, true)).toBe(0x0001);
  expect(Number(v.getBigUint64(extra + 4, true))).toBe(start);
  const zip64 = bytes.length - 22 - 20 - 56;
  expect(v.getUint32(zip64, true)).toBe(0x06064b50);
  expect(Number(v.getBigUint64(zip64 + 48, true))).toBe(start + central); // where the central directory starts
  expect(v.getUint32(bytes.length - 22 + 16, true)).toBe(0xffffffff);
});
