/**
 * The inline badge (`:badge[New]{variant=info}`) as the editor holds it: the name, the text and the
 * attribute text exactly as written, so an untouched badge is written back byte for byte. Changing
 * the variant rewrites only the variant's value inside the attribute text (its quoting kept), or
 * adds `variant=…` when there was none. The reading follows the site's renderer
 * (src/publish/render/directives.ts, components.ts): `variant`, else `type`, else "default".
 */

/** The variants the site's renderer draws (the same list as its own; a test compares them). */
export const BADGE_VARIANTS = ["default", "info", "success", "warning", "danger", "tip", "note", "new", "beta", "deprecated"];

/** An inline badge in text, as the renderer's inline tokenizer reads it. */
export const BADGE_SOURCE = /:(badge)\[([^\[\]\n]*)\](?:\{([^{}\n]*)\})?/i;

export interface BadgeAttrs {
  /** The name as written (`badge`, or `Badge`). */
  name: string;
  text: string;
  /** The text between the braces, or null when the badge has none. */
  attrs: string | null;
}

// The renderer's attribute grammar: `.class`, `#id`, `key`, `key=value`, `key="a b"`, `key='a b'`.
const ATTRIBUTE = /([.#])([\w-]+)|([\w:-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'}]+)))?/g;

/** The last assignment of `key` in the attribute text (the renderer keeps the last one). */
function lastAssignment(attrs: string, key: string): RegExpExecArray | null {
  let found: RegExpExecArray | null = null;
  for (const m of attrs.matchAll(new RegExp(ATTRIBUTE.source, "g"))) if (m[3]?.toLowerCase() === key) found = m as RegExpExecArray;
  return found;
}

const valueOf = (m: RegExpExecArray) => m[4] ?? m[5] ?? m[6] ?? "";

/** The variant the site draws for this badge ("default" for an unknown one, as the site does). */
export function badgeVariant(attrs: string | null): string {
  const m = attrs === null ? null : (lastAssignment(attrs, "variant") ?? lastAssignment(attrs, "type"));
  const requested = (m ? valueOf(m) : "default").toLowerCase();
  return BADGE_VARIANTS.includes(requested) ? requested : "default";
}

/** The attribute text with the variant set to `variant`, everything else as it was. */
export function withVariant(attrs: string | null, variant: string): string {
  if (attrs === null || attrs.trim() === "") return `variant=${variant}`;
  const m = lastAssignment(attrs, "variant") ?? lastAssignment(attrs, "type");
  if (!m) return `${attrs.replace(/\s+$/, "")} variant=${variant}`;
  const whole = m[0];
  let next: string;
  if (m[4] !== undefined) next = whole.slice(0, whole.length - m[4].length - 2) + `"${variant}"`;
  else if (m[5] !== undefined) next = whole.slice(0, whole.length - m[5].length - 2) + `'${variant}'`;
  else if (m[6] !== undefined) next = whole.slice(0, whole.length - m[6].length) + variant;
  else next = `${whole}=${variant}`;
  return attrs.slice(0, m.index) + next + attrs.slice(m.index + whole.length);
}

/** What a writer may type as a badge's text: one line without brackets (they would end it). */
export function cleanBadgeText(text: string): string {
  return text.replace(/[\[\]\r\n]/g, "");
}

/** The badge's Markdown. */
export function badgeMarkdown(a: BadgeAttrs): string {
  return `:${a.name}[${a.text}]${a.attrs === null ? "" : `{${a.attrs}}`}`;
}
