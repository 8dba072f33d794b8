import type { SiteModel } from "./model.ts";
import { servedSiteUrls, type SiteUrls } from "./urls.ts";
import { nonceTemplate, type NonceTemplate } from "./csp-nonce.ts";
import { etagOf } from "./etag.ts";

/** A finished page of one site model version, ready to be answered from memory. */
interface CachedDoc extends NonceTemplate {
  etag: string;
  /** The headers every response of this version shares, by Cache-Control value (public or private). */
  shared: Map<string, Headers>;
}

/**
 * What the published site makes once per site model and then answers from memory: the URL
 * builders (per mount point and origin), the finished pages (as nonce templates) and the text
 * answers (feeds, Markdown twins). Everything is keyed by the model object, so a republished
 * site (a new model) leaves the old entries to the garbage collector with the old model.
 */
export class SitePageCache {
  private docs = new WeakMap<SiteModel, Map<string, CachedDoc>>();
  private readonly urls = new WeakMap<SiteModel, Map<string, SiteUrls>>();
  private readonly texts = new WeakMap<SiteModel, Map<string, { body: string; etag: string }>>();

  /** The URL builder for a model served under `urlsKey` (prefix, origin, version), made on first use. */
  urlsFor(model: SiteModel, urlsKey: string, prefix: string, origin: string, assetVersion: string): SiteUrls {
    let byModel = this.urls.get(model);
    if (!byModel) this.urls.set(model, (byModel = new Map()));
    let urls = byModel.get(urlsKey);
    if (!urls) byModel.set(urlsKey, (urls = servedSiteUrls(model, { prefix, origin, assetVersion })));
    return urls;
  }

  /** The finished pages of a model, by the page's key (URLs, path, edit link, consent question). */
  docsOf(model: SiteModel): Map<string, CachedDoc> {
    let byModel = this.docs.get(model);
    if (!byModel) this.docs.set(model, (byModel = new Map()));
    return byModel;
  }

  /** A text answer made once per site model (feeds, Markdown twins), then served from memory. */
  text(model: SiteModel, key: string, make: () => string | null): { body: string; etag: string } | null {
    let byModel = this.texts.get(model);
    if (!byModel) this.texts.set(model, (byModel = new Map()));
    let hit = byModel.get(key);
    if (!hit) {
      const body = make();
      if (body === null) return null;
      hit = { body, etag: etagOf(body) };
      byModel.set(key, hit);
    }
    return hit;
  }

  /** Forgets every finished page (the URL builders and texts stay). */
  forgetDocs(): void {
    this.docs = new WeakMap();
  }
}

/** A rendered page (with NONCE_MARK where the nonce goes) made into its cached form. */
export function cachedDoc(html: string): CachedDoc {
  return { ...nonceTemplate(html), etag: etagOf(html), shared: new Map() };
}

/** The headers every response of this page version shares under this Cache-Control, built once. */
export function sharedHeaders(doc: CachedDoc, cacheControl: string): Headers {
  let shared = doc.shared.get(cacheControl);
  if (!shared) {
    shared = new Headers({
      "content-type": "text/html; charset=utf-8",
      "cache-control": cacheControl,
      etag: doc.etag,
      "referrer-policy": "strict-origin-when-cross-origin",
      vary: "Accept, Cookie, Authorization",
      "x-content-type-options": "nosniff",
    });
    doc.shared.set(cacheControl, shared);
  }
  return shared;
}
