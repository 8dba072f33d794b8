import { createHash, randomBytes } from "node:crypto";
import { closeSync, mkdtempSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { requireFreeSpace } from "../../core/storage-errors.ts";
import { dirname, join, resolve } from "node:path";
import { NotFoundError, RateLimitedError, ValidationError } from "../../core/errors.ts";
import { isUlid } from "../../core/ids.ts";
import { parseInput } from "../../core/validate.ts";
import type { Principal } from "../../core/principal.ts";
import type { Permissions } from "../../access/permissions.ts";
import type { WorkspaceRow } from "../../workspaces/workspace-records.ts";
import { exportInput } from "../schemas.ts";
import type { ExportOptions, ExportSummary, SiteExporter } from "./exporter.ts";

/**
 * The export as a capability: the HTTP route, the CLI and the MCP tool all come here.
 * - `open`: an admin's export streamed as it is made (GET|POST /api/v1/workspaces/:id/export),
 *   at most one per workspace per 24 hours (the export limit of docs/interfaces.md §8);
 * - `toFile`: the CLI's export into a file (written beside it under a temporary name, renamed when
 *   complete, so a failed export never leaves a truncated ZIP under the requested name);
 * - `prepareDownload`: MCP's quire_export — the ZIP is made now (its size is part of the answer)
 *   and served at an unguessable URL for 15 minutes, then deleted.
 */
const EXPORTS_PER_DAY = 1;
const DAY_MS = 24 * 60 * 60 * 1000;
export const DOWNLOAD_TTL_MS = 15 * 60 * 1000;

interface OpenedExport {
  workspace: WorkspaceRow;
  filename: string;
  body: ReadableStream<Uint8Array>;
}

interface Prepared {
  file: string;
  filename: string;
  workspaceId: string;
  expiresAt: number;
  timer: ReturnType<typeof setTimeout>;
}

export class ExportService {
  /** Workspace id → when its daily export allowance comes back (ms). */
  private readonly lastExport = new Map<string, number>();
  /** sha256(token) → prepared download: the token itself is never kept. */
  private readonly downloads = new Map<string, Prepared>();

  constructor(
    private readonly deps: {
      permissions: Permissions;
      exporter: SiteExporter;
      /** The instance's public address, for download URLs. */
      baseUrl: string;
      now?: () => number;
    },
  ) {}

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  /** The default file name: `<site-slug>-export.zip`. */
  static filenameOf(workspace: Pick<WorkspaceRow, "slug">): string {
    return `${workspace.slug}-export.zip`;
  }

  /** An admin's export as a byte stream; counts against the workspace's daily allowance. */
  open(principal: Principal, workspaceRef: string, input: unknown): OpenedExport {
    const options = parseInput(exportInput, input);
    const workspace = this.requireAdmin(principal, workspaceRef);
    this.claimDailyExport(workspace.id);
    const generator = this.deps.exporter.zip(workspace.id, { baseUrl: options.base_url ?? null });
    return { workspace, filename: ExportService.filenameOf(workspace), body: streamOf(generator) };
  }

  /**
   * quire_export: makes the ZIP now and returns a download URL valid 15 minutes (one export of the
   * daily allowance). The URL's token is 32 random bytes; only its hash is kept.
   */
  async prepareDownload(principal: Principal, workspaceRef: string, input: unknown = {}): Promise<{ pages: number; bytes: number; url: string; expires_at: string }> {
    const options = parseInput(exportInput, input);
    const workspace = this.requireAdmin(principal, workspaceRef);
    // The ZIP is written to the system's temporary folder first: refused before it starts when it would fill that disk.
    requireFreeSpace(tmpdir(), this.deps.exporter.expectedBytes(workspace.id), "the export");
    this.claimDailyExport(workspace.id);
    const dir = mkdtempSync(join(tmpdir(), "quire-export-"));
    const file = join(dir, ExportService.filenameOf(workspace));
    let summary: ExportSummary;
    try {
      summary = await this.writeFile(workspace.id, file, { baseUrl: options.base_url ?? null });
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
    const token = randomBytes(32).toString("base64url");
    const expiresAt = this.now() + DOWNLOAD_TTL_MS;
    const key = hashToken(token);
    const timer = setTimeout(() => this.forget(key), DOWNLOAD_TTL_MS);
    timer.unref?.();
    this.downloads.set(key, { file, filename: ExportService.filenameOf(workspace), workspaceId: workspace.id, expiresAt, timer });
    return {
      pages: summary.pages,
      bytes: summary.bytes,
      url: `${this.deps.baseUrl.replace(/\/+$/, "")}/api/v1/exports/${token}`,
      expires_at: new Date(expiresAt).toISOString(),
    };
  }

  /** A prepared download by its token; 404 when unknown or expired (the same answer for both). */
  download(token: string): { filename: string; size: number; body: ReadableStream<Uint8Array> } {
    const key = hashToken(token);
    const prepared = this.downloads.get(key);
    if (!prepared || prepared.expiresAt <= this.now()) {
      if (prepared) this.forget(key);
      throw new NotFoundError("This download link is unknown or has expired");
    }
    const file = Bun.file(prepared.file);
    return { filename: prepared.filename, size: file.size, body: file.stream() };
  }

  /**
   * An admin's export into a file (MCP's stdio `quire_export` with `output`): the same checks and
   * daily allowance as the API.
   */
  async exportToFile(principal: Principal, workspaceRef: string, file: string, input: unknown = {}): Promise<ExportSummary & { file: string }> {
    const options = parseInput(exportInput, input);
    const workspace = this.requireAdmin(principal, workspaceRef);
    this.claimDailyExport(workspace.id);
    return this.toFile(workspace.id, file, { baseUrl: options.base_url ?? null });
  }

  /** The CLI's export into `file` (no permission check: the caller holds the data directory). */
  async toFile(workspaceId: string, file: string, opts: ExportOptions = {}): Promise<ExportSummary & { file: string }> {
    const target = resolve(file);
    const summary = await this.writeFile(workspaceId, target, opts);
    return { file: target, ...summary };
  }

  /** Removes every prepared download (shutdown). */
  close(): void {
    for (const key of [...this.downloads.keys()]) this.forget(key);
  }

  private async writeFile(workspaceId: string, file: string, opts: ExportOptions): Promise<ExportSummary> {
    const partial = join(dirname(file), `.${Date.now().toString(36)}-${randomBytes(4).toString("hex")}.partial`);
    let fd: number;
    try {
      fd = openSync(partial, "wx", 0o644);
    } catch (error) {
      throw new ValidationError(`cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, "output");
    }
    try {
      const it = this.deps.exporter.zip(workspaceId, opts);
      for (;;) {
        const next = await it.next();
        if (next.done) {
          closeSync(fd);
          renameSync(partial, file);
          return next.value;
        }
        writeAll(fd, next.value);
      }
    } catch (error) {
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
      rmSync(partial, { force: true });
      throw error;
    }
  }

  private forget(key: string): void {
    const prepared = this.downloads.get(key);
    if (!prepared) return;
    clearTimeout(prepared.timer);
    this.downloads.delete(key);
    rmSync(dirname(prepared.file), { recursive: true, force: true });
  }

  private requireAdmin(principal: Principal, workspaceRef: string): WorkspaceRow {
    const ref = isUlid(workspaceRef) ? { id: workspaceRef } : { slug: workspaceRef };
    return this.deps.permissions.require(principal, ref, "admin").workspace;
  }

  /** One export per workspace per 24 hours through the API (the CLI, run by the operator, is not limited). */
  private claimDailyExport(workspaceId: string): void {
    const now = this.now();
    const resetAt = this.lastExport.get(workspaceId);
    if (resetAt !== undefined && resetAt > now) {
      throw new RateLimitedError(EXPORTS_PER_DAY, Math.ceil(resetAt / 1000), Math.max(1, Math.ceil((resetAt - now) / 1000)));
    }
    this.lastExport.set(workspaceId, now + DAY_MS);
  }
}

function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

function writeAll(fd: number, chunk: Uint8Array): void {
  let off = 0;
  while (off < chunk.length) off += writeSync(fd, chunk, off, chunk.length - off);
}

/** A pull-based stream over the export generator: a slow reader pauses the rendering. */
function streamOf(generator: AsyncGenerator<Uint8Array, unknown>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await generator.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel() {
      await generator.return(undefined);
    },
  });
}
