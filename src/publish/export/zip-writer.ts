import { Zip, ZipDeflate, ZipPassThrough } from "fflate";

/**
 * A ZIP written as a stream (fflate): entries go in one at a time and the compressed bytes come out
 * as they are produced, so an export holds one page at a time, never the archive. Identical input
 * gives identical bytes: every entry carries the same fixed timestamp (given as local date parts,
 * because the ZIP format stores local time: any time zone writes the same fields) and the caller
 * adds entries in a fixed order.
 */
const FIXED_MTIME = new Date(2000, 0, 1, 0, 0, 0);
/** Already compressed formats are stored as they are: deflating them again only costs time. */
const STORED = /\.(png|jpe?g|gif|webp|avif|zip|gz|woff2?|mp4|webm|pdf)$/i;

export class ZipWriter {
  private readonly zip: Zip;
  private chunks: Uint8Array[] = [];
  private failure: Error | null = null;
  private readonly names = new Set<string>();
  /** Bytes of ZIP produced so far. */
  bytes = 0;
  entries = 0;

  constructor() {
    this.zip = new Zip((error, chunk) => {
      if (error) this.failure = error;
      else {
        this.chunks.push(chunk);
        this.bytes += chunk.length;
      }
    });
  }

  add(path: string, data: Uint8Array | string): void {
    if (this.names.has(path)) return; // first one wins (a page and an upload can never share a name, but be safe)
    this.names.add(path);
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    const entry = STORED.test(path) ? new ZipPassThrough(path) : new ZipDeflate(path, { level: 6 });
    entry.mtime = FIXED_MTIME;
    this.zip.add(entry);
    entry.push(bytes, true);
    this.entries++;
    if (this.failure) throw this.failure;
  }

  has(path: string): boolean {
    return this.names.has(path);
  }

  end(): void {
    this.zip.end();
    if (this.failure) throw this.failure;
  }

  /** The bytes produced since the last call. */
  take(): Uint8Array[] {
    const out = this.chunks;
    this.chunks = [];
    return out;
  }
}
