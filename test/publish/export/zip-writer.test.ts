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
