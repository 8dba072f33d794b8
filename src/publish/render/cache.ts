import type { EventBus } from "../../core/event-bus.ts";
import type { RenderOptions, RenderResult } from "./types.ts";

/**
 * The renderer (marked, Prism and its languages, KaTeX, the sanitizer) is loaded on the first
 * render that misses, not with the cache: a server builds its site service at start and may
 * never render a page.
 */
let renderer: typeof import("./index.ts") | undefined;
const renderMarkdown: typeof import("./index.ts").renderMarkdown = (markdown, opts) =>
  (renderer ??= require("./index.ts") as typeof import("./index.ts")).renderMarkdown(markdown, opts);

/**
 * Rendered pages by content: a bounded LRU keyed by (scope, page path, link context, content hash).
 *
 * - scope: usually the workspace id; everything rendered for it is dropped when the ledger reports
 *   a change in it (`subscribe`), because a page's output also depends on the other pages (a link
 *   turns dead when its target is deleted, moved or unpublished);
 * - page path: relative links resolve from the page's folder, so two pages with the same text are
 *   not the same render;
 * - link context: whatever else changes the caller's URLs (site vs export vs preview, version,
 *   custom domain, base path) — the caller's own short string;
 * - content hash: SHA-256 of the Markdown, or the ledger's own content hash when the caller has it.
 *
 * A hit costs the hash (skipped when the caller passes one) and a Map lookup. Bounded by entries
 * and by the size of the HTML held, so a workspace of huge pages cannot pin memory.
 */
interface RenderCacheOptions {
  maxEntries?: number;
  /** Upper bound on the UTF-16 length of the HTML held, summed over entries. */
  maxChars?: number;
}

interface CachedRender {
  /** Usually the workspace id (see `subscribe`). */
  scope: string;
  /** The caller's link context (site, export, preview; version; base URL …). */
  linkContext: string;
  /** The content hash when the caller already has one; computed from the Markdown otherwise. */
  contentHash?: string;
}

interface Entry {
  scope: string;
  result: RenderResult;
  size: number;
}

export class RenderCache {
  private readonly entries = new Map<string, Entry>();
  private chars = 0;
  private readonly maxEntries: number;
  private readonly maxChars: number;
  hits = 0;
  misses = 0;

  constructor(opts: RenderCacheOptions = {}) {
    this.maxEntries = Math.max(1, opts.maxEntries ?? 2000);
    this.maxChars = Math.max(1, opts.maxChars ?? 64 * 1024 * 1024);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The render of `markdown` for this page and link context, from the cache or rendered now. */
  render(markdown: string, opts: RenderOptions, key: CachedRender): RenderResult {
    const hash = key.contentHash ?? contentHash(markdown);
    const k = `${key.scope}\u0000${opts.pagePath}\u0000${key.linkContext}\u0000${hash}`;
    const found = this.entries.get(k);
    if (found) {
      // Most recently used last: Map keeps insertion order.
      this.entries.delete(k);
      this.entries.set(k, found);
      this.hits++;
      return found.result;
    }
    this.misses++;
    const result = renderMarkdown(markdown, opts);
    const size = result.html.length;
    if (size <= this.maxChars) {
      this.entries.set(k, { scope: key.scope, result, size });
      this.chars += size;
      this.evict();
    }
    return result;
  }

  /** Forgets everything rendered for a scope (a workspace whose pages changed). */
  invalidate(scope: string): void {
    for (const [k, e] of this.entries) {
      if (e.scope === scope) {
        this.entries.delete(k);
        this.chars -= e.size;
      }
    }
  }

  clear(): void {
    this.entries.clear();
    this.chars = 0;
  }

  /**
   * Drops a workspace's renders whenever the ledger commits a change in it (a page written,
   * deleted, moved, or the workspace reconciled from disk). Returns the unsubscribe function.
   */
  subscribe(bus: EventBus): () => void {
    return bus.onChange((change) => this.invalidate(change.workspace_id));
  }

  private evict(): void {
    while (this.entries.size > this.maxEntries || this.chars > this.maxChars) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      const e = this.entries.get(oldest.value)!;
      this.entries.delete(oldest.value);
      this.chars -= e.size;
    }
  }
}

function contentHash(markdown: string): string {
  return new Bun.CryptoHasher("sha256").update(markdown).digest("hex");
}
