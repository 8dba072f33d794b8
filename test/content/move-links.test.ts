import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { sha256Hex } from "../../src/core/crypto.ts";
import { fileOf, livePage, owner } from "./support.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const FENCE = "```";

test("a move rewrites reference definitions and every Markdown link form, and leaves code and HTML blocks byte for byte", async () => {
  const o = await owner(server);
  await o.client.post(`${o.base}/docs/setup`, { title: "Setup" });
  const before = [
    "Inline [setup](docs/setup.md#step-2 \"Setup\") and angle [a](<docs/setup.md>).",
    "Titles [s1](docs/setup.md 'single') and [s2](docs/setup.md (paren)).",
    "By reference [the setup][1], [install][two], [next line][later].",
    "Inline code `[c](docs/setup.md)` and ``[[docs/setup]]`` stays.",
    "",
    "    [indented](docs/setup.md) and [[docs/setup]] in an indented code block stay",
    "",
    `${FENCE}sh`,
    "[fenced](docs/setup.md)",
    "[[docs/setup]]",
    FENCE,
    "",
    "<div>",
    "[html](docs/setup.md) [[docs/setup]]",
    "</div>",
    "",
    "> Quoted [q](docs/setup.md) and `[qc](docs/setup.md)`.",
    "",
    "- list [l](docs/setup.md)",
    "- `code [lc](docs/setup.md)` then [lk](docs/setup.md)",
    "",
    "| a | b |",
    "|---|---|",
    "| [t](docs/setup.md) | `[tc](docs/setup.md)` |",
    "",
    "[1]: docs/setup.md",
    "[two]: <docs/setup.md#install> \"Install title\"",
    "[later]:",
    "  docs/setup.md",
    "  'A title on the next line'",
    "[unrelated]: docs/setups.md",
    "",
  ].join("\n");
  const linker = await o.client.post(`${o.base}/linker`, { title: "Linker", body: before });
  expect(linker.status).toBe(201);

  const moved = await o.client.patch(`${o.base}/docs/setup`, { new_path: "guide/install" });
  expect(moved.status).toBe(200);

  const after = [
    "Inline [setup](guide/install.md#step-2 \"Setup\") and angle [a](<guide/install.md>).",
    "Titles [s1](guide/install.md 'single') and [s2](guide/install.md (paren)).",
    "By reference [the setup][1], [install][two], [next line][later].",
    "Inline code `[c](docs/setup.md)` and ``[[docs/setup]]`` stays.",
    "",
    "    [indented](docs/setup.md) and [[docs/setup]] in an indented code block stay",
    "",
    `${FENCE}sh`,
    "[fenced](docs/setup.md)",
    "[[docs/setup]]",
    FENCE,
    "",
    "<div>",
    "[html](docs/setup.md) [[docs/setup]]",
    "</div>",
    "",
    "> Quoted [q](guide/install.md) and `[qc](docs/setup.md)`.",
    "",
    "- list [l](guide/install.md)",
    "- `code [lc](docs/setup.md)` then [lk](guide/install.md)",
    "",
    "| a | b |",
    "|---|---|",
    "| [t](guide/install.md) | `[tc](docs/setup.md)` |",
    "",
    "[1]: guide/install.md",
    "[two]: <guide/install.md#install> \"Install title\"",
    "[later]:",
    "  guide/install.md",
    "  'A title on the next line'",
    "[unrelated]: docs/setups.md",
    "",
  ].join("\n");
  const text = fileOf(o, "linker.md")!;
  expect(text).toBe(`---\nid: ${linker.body.page_id}\ntitle: Linker\n---\n\n${after}`);
  // The record carries the rewritten file's hash.
  expect(livePage(server, o.wsId, "linker.md")!.content_hash).toBe(`sha256:${sha256Hex(text)}`);
});

test("the moved page's own reference definitions are re-pointed from its new folder; its code is not", async () => {
  const o = await owner(server);
  await o.client.post(`${o.base}/intro`, { title: "Intro" });
  const body = [
    "See [intro][i] and [again](../intro.md).",
    "",
    "    [code](../intro.md)",
    "",
    "[i]: ../intro.md#top",
    "",
  ].join("\n");
  const page = await o.client.post(`${o.base}/docs/setup`, { title: "Setup", body });
  const moved = await o.client.patch(`${o.base}/docs/setup`, { new_path: "manual/install/setup" });
  expect(moved.status).toBe(200);
  expect(fileOf(o, "docs/setup.md")).toBeNull();
  expect(fileOf(o, "manual/install/setup.md")).toBe(
    `---\nid: ${page.body.page_id}\ntitle: Setup\n---\n\n` +
      ["See [intro][i] and [again](../../intro.md).", "", "    [code](../intro.md)", "", "[i]: ../../intro.md#top", ""].join("\n"),
  );
});

test("a page whose only mention of the moved page is in code is not rewritten at all", async () => {
  const o = await owner(server);
  await o.client.post(`${o.base}/docs/setup`, { title: "Setup" });
  const body = "Example:\n\n    [setup](docs/setup.md)\n\nand `[[docs/setup]]`.\n";
  const codeOnly = await o.client.post(`${o.base}/howto`, { title: "How to", body });
  expect((await o.client.patch(`${o.base}/docs/setup`, { new_path: "docs/install" })).status).toBe(200);
  const after = await o.client.get(`${o.base}/howto`);
  expect(after.body.content).toBe(body);
  expect(after.body.content_hash).toBe(codeOnly.body.content_hash);
});

test("a CRLF page keeps its line endings; its definitions (destination on the next line too) are rewritten", async () => {
  const o = await owner(server);
  await o.client.post(`${o.base}/docs/setup`, { title: "Setup" });
  const linker = await o.client.post(`${o.base}/crlf`, { title: "CRLF" });
  // Written as a Windows editor would save it, then read back through the API for its hash.
  const crlf = (s: string) => s.replaceAll("\n", "\r\n");
  const head = `---\nid: ${linker.body.page_id}\ntitle: CRLF\n---\n\n`;
  writeFileSync(join(o.dir, "crlf.md"), crlf(head + "See [a][1] and [b][2].\n\n    [code](docs/setup.md)\n\n[1]: docs/setup.md\n[2]:\n  docs/setup.md\n"));
  expect((await o.client.patch(`${o.base}/docs/setup`, { new_path: "setup" })).status).toBe(200);
  expect(fileOf(o, "crlf.md")).toBe(crlf(head + "See [a][1] and [b][2].\n\n    [code](docs/setup.md)\n\n[1]: setup.md\n[2]:\n  setup.md\n"));
});

test("percent-encoded links to a page whose name has a space are found and stay encoded", async () => {
  const o = await owner(server);
  await o.client.post(`${o.base}/${encodeURIComponent("my page")}`, { title: "Mine" });
  const linker = await o.client.post(`${o.base}/enc`, { title: "Enc", body: "[p](my%20page.md) and [q](<my page.md>)\n" });
  expect((await o.client.patch(`${o.base}/${encodeURIComponent("my page")}`, { new_path: "docs/my page" })).status).toBe(200);
  expect(fileOf(o, "enc.md")).toBe(`---\nid: ${linker.body.page_id}\ntitle: Enc\n---\n\n[p](docs/my%20page.md) and [q](<docs/my page.md>)\n`);
});
