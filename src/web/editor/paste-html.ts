/**
 * Pasted HTML, cleaned before the editor reads it: scripts, styles, frames and objects removed,
 * event handlers, inline styles and classes dropped, and links or images whose address is not a
 * web, mail or relative one unlinked. It is parsed with DOMParser, whose document never runs a
 * script or loads an image, so nothing in the paste acts while it is being cleaned — and the
 * page's CSP has nothing to refuse. A parsed document shares the page's CSP, which reports every
 * handler and style attribute it meets even though none runs, so those are cut from the text first
 * (the DOM pass below catches whatever that misses).
 */
const DROP = "script, style, link, meta, iframe, frame, object, embed, noscript, template, form, input, button, select, textarea";
const SAFE_URL = /^(https?:|mailto:|\/|#|\.{0,2}\/|[^:]*$)/i;

const ATTR_VALUE = `\\s*=\\s*(?:"[^"]*"|'[^']*'|[^\\s>]+)`;
const PRE = [
  /<(script|style|noscript|template|iframe|object)\b[\s\S]*?<\/\1\s*>/gi,
  new RegExp(`\\s(?:on[a-z]+|style)${ATTR_VALUE}`, "gi"),
];

export function cleanPastedHtml(html: string): string {
  const text = PRE.reduce((t, re) => t.replace(re, ""), html);
  const doc = new DOMParser().parseFromString(text, "text/html");
  for (const el of Array.from(doc.querySelectorAll(DROP))) el.remove();
  for (const el of Array.from(doc.body.querySelectorAll("*"))) {
    for (const attr of Array.from(el.attributes)) {
      const name = attr.name.toLowerCase();
      if (name.startsWith("on") || name === "style" || name === "class" || name === "id" || name === "srcset") el.removeAttribute(attr.name);
      else if ((name === "href" || name === "src" || name === "action" || name === "formaction" || name === "xlink:href") && !SAFE_URL.test(attr.value.trim())) el.removeAttribute(attr.name);
    }
  }
  return doc.body.innerHTML;
}
