import { escapeHtml } from "../../core/escape.ts";
import { classifyHref, schemeOf, SAFE_SCHEMES, type Classified } from "./links.ts";
import { current } from "./state.ts";

/**
 * Link destinations of the page being rendered, through the caller's `resolveLink`: Markdown
 * links, images, wikilinks and card links all end here, so they break the same way.
 */

/** A link destination as the page will carry it, or a broken-link reason. */
export function hrefFor(raw: string, forImage = false): { href: string } | { broken: string } {
  const s = current();
  const c = classifyHref(raw, s.opts.pagePath, forImage);
  // `[Setup](setup)`, written for sites that drop `.md`: a page when one exists at `setup.md`.
  if (!forImage && c.kind === "target" && c.target.kind === "file" && !/\.[^/]*$/.test(c.target.path) && s.opts.pageExists?.(`${c.target.path}.md`)) {
    return fromClassified({ ...c, target: { ...c.target, kind: "page", path: `${c.target.path}.md` } });
  }
  return fromClassified(c, forImage);
}

export function fromClassified(c: Classified, forImage = false): { href: string } | { broken: string } {
  switch (c.kind) {
    case "external":
    case "anchor":
      return { href: c.href };
    case "broken":
      return { broken: c.reason };
    case "target": {
      const url = current().opts.resolveLink(c.target);
      if (url === null) return { broken: `${c.target.path} does not exist or is not published` };
      // The caller's URL lands in markup the sanitizer does not see (cards): hold it to the same schemes.
      const scheme = schemeOf(url);
      const rasterImage = forImage && scheme === "data" && /^\s*data:image\/(png|jpeg|gif|webp|avif);/i.test(url);
      if (scheme !== null && !SAFE_SCHEMES.has(scheme) && !rasterImage) return { broken: `links with the ${scheme}: scheme are not allowed` };
      if (c.query === undefined || url.includes("?")) return { href: url };
      // A query string the author wrote (a file's version, say) stays, before the fragment.
      const hash = url.indexOf("#");
      return { href: hash < 0 ? url + c.query : url.slice(0, hash) + c.query + url.slice(hash) };
    }
  }
}

/** Visibly broken link text: never a link. */
export function brokenLink(innerHtml: string, reason: string): string {
  return `<span class="broken-link" title="${escapeHtml(reason)}">${innerHtml}</span>`;
}

