/**
 * A real workspace for the export tests: the starter pages (published, with every component) plus
 * generated pages with an image, code, math, a diagram, links between folders, a hostile page, and
 * an unpublished page whose title must appear nowhere in an export. Files are written on disk and
 * reconciled, as an editor saving files would.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, posix } from "node:path";
import { unzipSync } from "fflate";
import type { TestServer } from "../../helpers/server.ts";
import { registerUser, type TestUser } from "../../helpers/factories.ts";

export const SECRET_TITLE = "Unreleased Quantum Pricing Plan";
export const SECRET_WORD = "zebracornflux";

/** A 1×1 PNG. */
export const PNG = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="),
  (c) => c.charCodeAt(0),
);

export interface ExportFixture {
  owner: TestUser;
  wsId: string;
  slug: string;
  dir: string;
}

const page = (title: string, body: string, extra = "publish: true\n") => `---\ntitle: ${title}\ndescription: ${title} described.\n${extra}---\n\n${body}`;

export const GENERATED: Record<string, string> = {
  "index.md": page("Home", "# Documentation home\n\nStart with [[reference/api]] or the [media page](media.md).\n"),
  "media.md": page(
    "Media and math",
    "## A picture\n\n![The logo](assets/logo.png)\n\nAnd one the web editor inserted: ![A screenshot](/api/v1/content/any-workspace/uploads/shot.png)\n\n## Math\n\nInline $e^{i\\pi} + 1 = 0$ and a block:\n\n$$\n\\int_0^1 x^2 \\, dx = \\frac{1}{3}\n$$\n\n## Code\n\n```ts title=\"app.ts\"\nexport const answer: number = 42;\n```\n\n## Diagram\n\n```mermaid\ngraph TD; A-->B;\n```\n\nBack to [home](index.md#documentation-home).\n",
  ),
  "reference/api.md": page(
    "API reference",
    "## Endpoints\n\n| method | path |\n|---|---|\n| GET | /pages |\n\nSee [[media#math]] and [[welcome]]. A link to the [hidden plan](../secret/plan.md).\n\n:::callout[tip]\nUse the API key of a bot account.\n:::\n",
  ),
  "reference/deep/nested.md": page("Nested page", "Deep inside. Up to [the API](../api.md) and [[index]].\n"),
  "hostile.md": page(
    "Hostile page",
    `<script>window.__pwned = 1</script>\n\n<img src="assets/logo.png" onerror="window.__pwned = 2">\n\n[click](javascript:window.__pwned=3) and <a href="javascript:window.__pwned=4">raw</a>\n\n<iframe src="https://evil.example"></iframe>\n\n<style>body{display:none}</style>\n\n<div onclick="window.__pwned=5">text</div>\n`,
  ),
  "secret/plan.md": page(SECRET_TITLE, `The ${SECRET_WORD} pricing is not public.\n`, "publish: false\n"),
};

/** Registers an owner and fills their starter workspace with the pages above (and the starter pages). */
export async function exportFixture(server: TestServer): Promise<ExportFixture> {
  const owner = await registerUser(server.url);
  const ws = server.services.workspaces.byId(owner.workspaceId)!;
  const dir = server.services.ledger.dir(ws.id).root;
  for (const [path, text] of Object.entries(GENERATED)) {
    mkdirSync(join(dir, posix.dirname(path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  mkdirSync(join(dir, "assets"), { recursive: true });
  writeFileSync(join(dir, "assets/logo.png"), PNG);
  writeFileSync(join(dir, "assets/shot.png"), PNG);
  writeFileSync(join(dir, "assets/private-notes.png"), PNG); // referenced by no published page: not exported
  await server.services.reconciler.reconcile(ws.id);
  server.services.site.invalidate(ws.id);
  return { owner, wsId: ws.id, slug: ws.slug, dir };
}

export function unzip(bytes: Uint8Array): Map<string, Uint8Array> {
  return new Map(Object.entries(unzipSync(bytes)));
}

/**
 * Every problem with the links of the exported HTML: an href/src that is absolute, names another
 * origin or /p/, or does not resolve to a file inside the ZIP. The one exception: a link (`<a>`,
 * never a resource) to an https address that a page itself wrote (inside `<p class="embed-link">`:
 * the embed component's video or widget, which the export shows as a link).
 */
export function linkProblems(files: Map<string, Uint8Array>, canonicalBase?: string): string[] {
  const problems: string[] = [];
  const decoder = new TextDecoder();
  for (const [name, bytes] of files) {
    if (!name.endsWith(".html")) continue;
    const html = decoder.decode(bytes);
    for (const m of html.matchAll(/<[^>]*\s(?:href|src)="([^"]*)"[^>]*>/g)) {
      const raw = m[1]!.replace(/&amp;/g, "&");
      if (raw.startsWith("#")) continue;
      if (canonicalBase && m[0].includes(`rel="canonical"`) && raw.startsWith(canonicalBase)) continue;
      const embedLink = `<p class="embed-link">`;
      if (m[0].startsWith("<a ") && html.slice(m.index! - embedLink.length, m.index) === embedLink && raw.startsWith("https://")) continue;
      if (/^[a-z][a-z0-9+.-]*:/i.test(raw) || raw.startsWith("/")) {
        problems.push(`${name}: ${raw} is not relative`);
        continue;
      }
      const path = decodeURIComponent(raw.replace(/[?#].*$/, ""));
      const target = posix.normalize(posix.join(posix.dirname(name), path));
      if (!files.has(target)) problems.push(`${name}: ${raw} → ${target} is not in the ZIP`);
    }
    if (html.includes("/p/")) problems.push(`${name}: mentions /p/`);
  }
  return problems;
}
