import type { SiteModel } from "./model.ts";
import { servedSiteUrls, type SiteUrls } from "./urls.ts";
import { siteCsp } from "./site-csp.ts";
import { etagOf } from "./etag.ts";

/**
 * A finished page of one site model version, ready to be answered from memory: the same bytes
 * and headers for every reader it is served to (no per-response nonce), so a 200 is a copy of
 * one response made once.
 */
interface CachedDoc {
  /** The document's UTF-8 bytes. */
  bytes: Uint8Array;
  /** A strong ETag of the bytes. */
  etag: string;
  /** The page's Content-Security-Policy (it admits inline style elements only where a diagram is drawn). */
  csp: string;
  /** The headers every response of this version shares, by Cache-Control value (public or private). */
  shared: Map<string, Headers>;
  /** A finished 200 response by Cache-Control value, cloned for each GET (never sent itself). */
  responses: Map<string, Response>;
}

/**
 * What the published site makes once per site model and then answers from memory: the URL
 * builders (per mount point and origin), the finished pages (bytes and headers) and the text
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

const utf8 = new TextEncoder();

/** A rendered page made into its cached form. */
export function cachedDoc(html: string, hasDiagrams: boolean): CachedDoc {
  return { bytes: utf8.encode(html), etag: etagOf(html), csp: siteCsp(hasDiagrams), shared: new Map(), responses: new Map() };
}

/** The headers every response of this page version shares under this Cache-Control, built once. */
export function sharedHeaders(doc: CachedDoc, cacheControl: string): Headers {
  let shared = doc.shared.get(cacheControl);
  if (!shared) {
    shared = new Headers({
      "content-type": "text/html; charset=utf-8",
      "cache-control": cacheControl,
      etag: doc.etag,
      "content-security-policy": doc.csp,
      "referrer-policy": "strict-origin-when-cross-origin",
      vary: "Accept, Cookie, Authorization",
      "x-content-type-options": "nosniff",
    });
    doc.shared.set(cacheControl, shared);
  }
  return shared;
}

/**
 * The 200 response of this page version under this Cache-Control, made once: each GET sends a
 * clone (cheaper than a new Response from the bytes and headers) and adds its own headers to it.
 */
export function sharedResponse(doc: CachedDoc, cacheControl: string): Response {
  let response = doc.responses.get(cacheControl);
  if (!response) {
    response = new Response(doc.bytes as ConstructorParameters<typeof Response>[0], { status: 200, headers: sharedHeaders(doc, cacheControl) });
    doc.responses.set(cacheControl, response);
  }
  return response;
}
