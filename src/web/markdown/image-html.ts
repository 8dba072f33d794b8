/**
 * An image written as an HTML `<img>` tag (the way a Markdown file gives an image a width), held
 * by the editor as an image node that keeps the tag's exact text: an untouched image is written
 * back byte for byte, and a changed alt text rewrites only the `alt` attribute's value (its quoting
 * kept), or adds one. Only a lone tag whose attributes the site keeps (src, alt, title, width,
 * height, loading: src/publish/render/sanitize.ts) is taken; anything else stays HTML source.
 */

export interface ImgTag {
  src: string;
  alt: string;
  title: string | null;
  width: string | null;
  height: string | null;
}

const ATTR = /\s+([a-zA-Z][\w-]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/y;
const KEPT = new Set(["src", "alt", "title", "width", "height", "loading"]);
const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

const decode = (text: string) =>
  text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, name: string) => {
    if (name[0] !== "#") return ENTITIES[name.toLowerCase()] ?? m;
    const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
  });

interface Attr {
  name: string;
  value: string;
  /** Where the attribute's text (from its leading space) starts and ends in the tag. */
  start: number;
  end: number;
  quote: '"' | "'" | "";
}

function attributes(tag: string): Attr[] | null {
  if (!/^<img(?=[\s/>])/i.test(tag)) return null;
  const out: Attr[] = [];
  let at = 4;
  for (;;) {
    ATTR.lastIndex = at;
    const m = ATTR.exec(tag);
    if (!m) break;
    out.push({ name: m[1]!.toLowerCase(), value: decode(m[2] ?? m[3] ?? m[4] ?? ""), start: at, end: ATTR.lastIndex, quote: m[2] !== undefined ? '"' : m[3] !== undefined ? "'" : "" });
    at = ATTR.lastIndex;
  }
  return /^\s*\/?>$/.test(tag.slice(at)) ? out : null;
}

/** The image a lone `<img …>` tag describes, or null when the text is anything else. */
export function parseImgTag(text: string): ImgTag | null {
  const attrs = attributes(text);
  if (!attrs || attrs.some((a) => !KEPT.has(a.name)) || new Set(attrs.map((a) => a.name)).size !== attrs.length) return null;
  const get = (name: string) => attrs.find((a) => a.name === name)?.value ?? null;
  const src = get("src");
  if (!src || /^\s*(javascript|vbscript):/i.test(src) || (/^\s*data:/i.test(src) && !/^\s*data:image\/(png|jpeg|gif|webp);/i.test(src))) return null;
  return { src, alt: get("alt") ?? "", title: get("title"), width: get("width"), height: get("height") };
}

const escapeFor = (value: string, quote: '"' | "'") => value.replace(/&/g, "&amp;").replace(quote === '"' ? /"/g : /'/g, quote === '"' ? "&quot;" : "&#39;").replace(/</g, "&lt;");

/** The tag with its alt text set to `alt`, every other byte as it was. */
export function withAlt(tag: string, alt: string): string {
  const attrs = attributes(tag);
  if (!attrs) return tag;
  const a = attrs.find((x) => x.name === "alt");
  if (!a) return `${tag.slice(0, 4)} alt="${escapeFor(alt, '"')}"${tag.slice(4)}`;
  const quote = a.quote || '"';
  const text = tag.slice(a.start, a.end);
  const eq = text.indexOf("=");
  const head = eq >= 0 ? text.slice(0, eq + 1) + text.slice(eq + 1).match(/^\s*/)![0] : `${text}=`;
  return tag.slice(0, a.start) + head + quote + escapeFor(alt, quote) + quote + tag.slice(a.end);
}
