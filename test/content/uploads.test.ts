import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { owner, type Owner } from "./support.ts";

let server: TestServer;
let o: Owner;
beforeAll(async () => {
  server = await startTestServer();
  o = await owner(server);
});
afterAll(() => server.close());

/** A real 1×1 PNG (signature, IHDR, IDAT, IEND with CRCs). */
function png(): Uint8Array {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0]);
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk("IHDR", ihdr),
      chunk("IDAT", deflateSync(Buffer.from([0, 255, 0, 0, 255]))),
      chunk("IEND", Buffer.alloc(0)),
    ]),
  );
}

const FILES: Record<string, { bytes: Uint8Array; name: string; type: string; ext: string }> = {
  png: { bytes: png(), name: "pixel.png", type: "image/png", ext: "png" },
  jpg: { bytes: new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 0xff, 0xd9]), name: "Photo.JPEG", type: "image/jpeg", ext: "jpg" },
  gif: { bytes: new Uint8Array([...Buffer.from("GIF89a"), 1, 0, 1, 0, 0, 0, 0, 0x3b]), name: "anim.gif", type: "image/gif", ext: "gif" },
  webp: { bytes: new Uint8Array([...Buffer.from("RIFF"), 26, 0, 0, 0, ...Buffer.from("WEBPVP8L"), 13, 0, 0, 0, 0x2f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), name: "img.webp", type: "image/webp", ext: "webp" },
  svg: { bytes: new TextEncoder().encode('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script><rect width="1" height="1"/></svg>'), name: "drawing.svg", type: "image/svg+xml", ext: "svg" },
  pdf: { bytes: new TextEncoder().encode("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"), name: "doc.pdf", type: "application/pdf", ext: "pdf" },
  txt: { bytes: new TextEncoder().encode("plain notes\nline two\n"), name: "notes.txt", type: "text/plain; charset=utf-8", ext: "txt" },
};

async function upload(bytes: Uint8Array, name: string, token = o.accessToken) {
  const form = new FormData();
  form.append("file", new File([new Uint8Array(bytes)], name, { type: "application/octet-stream" }));
  return o.client.request("POST", `${o.base}/uploads`, { body: form, token });
}

test("each accepted type is stored under assets/ with a generated name and served back with its real type", async () => {
  for (const [kind, f] of Object.entries(FILES)) {
    const r = await upload(f.bytes, f.name);
    expect(r.status).toBe(201);
    expect(r.body.content_type).toBe(f.type);
    expect(r.body.size).toBe(f.bytes.length);
    expect(r.body.filename).toMatch(new RegExp(`^[a-z0-9-]+-[0-9a-z]{26}\\.${f.ext}$`));
    expect(r.body.url).toBe(`${o.base}/uploads/${r.body.filename}`);
    expect(Buffer.from(readFileSync(join(o.dir, "assets", r.body.filename))).equals(Buffer.from(f.bytes))).toBe(true);
    const served = await fetch(server.url + r.body.url, { headers: { authorization: `Bearer ${o.accessToken}`, "x-forwarded-for": o.client.ip } });
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe(f.type);
    expect(served.headers.get("x-content-type-options")).toBe("nosniff");
    expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(f.bytes))).toBe(true);
    if (kind === "svg") {
      expect(served.headers.get("content-security-policy")).toBe("sandbox; default-src 'none'; style-src 'unsafe-inline'");
      expect(served.headers.get("content-disposition")).toStartWith("attachment");
    } else {
      expect(served.headers.get("content-security-policy")).toContain("default-src 'none'");
    }
  }
});

test("the type comes from the bytes: a PNG named .svg is a PNG; HTML, binaries and empty files are refused", async () => {
  const disguised = await upload(FILES.png!.bytes, "evil.svg");
  expect(disguised.status).toBe(201);
  expect(disguised.body.content_type).toBe("image/png");
  expect(disguised.body.filename).toEndWith(".png");

  const before = readdirSync(join(o.dir, "assets")).length;
  for (const [bytes, name] of [
    [new TextEncoder().encode("<!doctype html><html><script>alert(1)</script></html>"), "page.html"],
    [new TextEncoder().encode("hello <script>alert(1)</script>"), "notes.txt"],
    [new TextEncoder().encode("<html><body>hi</body></html>"), "pic.png"],
    [new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), "tool.png"],
    [new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0]), "archive.zip"],
    [new Uint8Array([]), "empty.txt"],
  ] as const) {
    const r = await upload(bytes, name);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: "VALIDATION_ERROR", details: { field: "file" } });
  }
  expect(readdirSync(join(o.dir, "assets")).length).toBe(before);

  // The client's file name never becomes a path.
  const sneaky = await upload(FILES.txt!.bytes, "../../../etc/cron.d/x.txt");
  expect(sneaky.status).toBe(201);
  expect(sneaky.body.filename).toMatch(/^x-[0-9a-z]{26}\.txt$/);
  expect(existsSync(join(o.dir, "assets", sneaky.body.filename))).toBe(true);
});

test("no file field is 400; an 11 MB file is 413; a viewer or a stranger cannot upload", async () => {
  const none = await o.client.request("POST", `${o.base}/uploads`, { body: new FormData() });
  expect(none.status).toBe(400);
  const big = await upload(new Uint8Array(11 * 1024 * 1024).fill(65), "big.txt");
  expect(big.status).toBe(413);
  const stranger = await owner(server);
  const r = await upload(FILES.png!.bytes, "x.png", stranger.accessToken);
  expect(r.status).toBe(404);
  const anon = await o.client.request("POST", `${o.base}/uploads`, { body: new FormData(), token: null });
  expect(anon.status).toBe(401);
});

test("serving refuses unknown names, traversal and other workspaces' readers", async () => {
  const r = await upload(FILES.png!.bytes, "a.png");
  expect((await o.client.get(`${o.base}/uploads/nope-01j00000000000000000000000.png`)).status).toBe(404);
  expect((await o.client.get(`${o.base}/uploads/..%2f..%2fquire.db`)).status).toBe(404);
  expect((await o.client.get(`${o.base}/uploads/.hidden.png`)).status).toBe(404);
  expect((await o.client.get(`${o.base}/uploads/x.html`)).status).toBe(404);
  const stranger = await owner(server);
  expect((await stranger.client.get(`${o.base}/uploads/${r.body.filename}`)).status).toBe(404);
  expect((await o.client.get(`${o.base}/uploads/${r.body.filename}`, { token: null })).status).toBe(401);
});
