import { stem, words } from "./terms.ts";

/**
 * A workspace's indexed terms in memory, for typo tolerance: a misspelt word has hundreds of
 * spellings one edit away, and checking them against a Set takes microseconds where as many
 * lookups in FTS5's vocabulary table take milliseconds. Loaded on the first misspelt query (a
 * few thousand to a few tens of thousands of short strings), then kept current by adding the
 * words of each page written. Terms of deleted pages are not taken out: a stale term only adds
 * an alternative that matches nothing.
 */
export class Vocabulary {
  private terms: Set<string> | null = null;
  private paused = false;
  /** Writes came while paused and the set was loaded: it is behind the index. */
  private missed = false;

  constructor(private readonly load: () => string[]) {}

  has(term: string): boolean {
    this.terms ??= new Set(this.load());
    return this.terms.has(term);
  }

  /** Adds the terms of a page's text, when the set is loaded (otherwise the next load reads them). */
  add(...texts: string[]): void {
    if (!this.terms) return;
    if (this.paused) {
      this.missed = true;
      return;
    }
    for (const text of texts) for (const w of words(text)) this.terms.add(stem(w));
  }

  /**
   * Stops following writes, for a build: stemming every word of thousands of pages in JavaScript
   * would double the build's work. A misspelt query meanwhile uses the set as it was loaded (the
   * build's results are partial anyway); resume() drops it if it fell behind, so the next one
   * reads the whole index.
   */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    if (this.missed) this.terms = null;
    this.paused = false;
    this.missed = false;
  }

  /** Forgets the set (after a rebuild); the next misspelt query loads it again. */
  clear(): void {
    this.terms = null;
  }

  get loaded(): number {
    return this.terms?.size ?? 0;
  }
}
