import { readFileSync, statSync } from "node:fs";
import { UploadReferences } from "./upload-references.ts";
import { NotFoundError, PayloadTooLargeError, ValidationError } from "../core/errors.ts";
import { ulid } from "../core/ids.ts";
import { writeFileAtomic } from "./atomic-write.ts";
import type { ContentLedger } from "./ledger.ts";
import { assertRight, type ContentAccess } from "./rights.ts";
import type { z } from "zod";
import type { uploadOutput } from "./schemas.ts";

/**
 * Uploads live in the workspace under `assets/` so they travel with git (docs/architecture.md §5). Nothing
 * the client says is trusted: the type is sniffed from the bytes (a PNG named .svg is a PNG; an
 * HTML file is refused), and the stored name is generated.
 */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

interface UploadType {
  mime: string;
  ext: string;
}

const TYPES: Record<string, UploadType> = {
  png: { mime: "image/png", ext: "png" },
  jpg: { mime: "image/jpeg", ext: "jpg" },
  gif: { mime: "image/gif", ext: "gif" },
  webp: { mime: "image/webp", ext: "webp" },
  svg: { mime: "image/svg+xml", ext: "svg" },
  pdf: { mime: "application/pdf", ext: "pdf" },
  txt: { mime: "text/plain; charset=utf-8", ext: "txt" },
};
const EXT_ALIASES: Record<string, string> = { jpeg: "jpg", text: "txt", md: "txt" };

const startsWith = (b: Uint8Array, sig: number[], at = 0) => sig.every((v, i) => b[at + i] === v);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));
const utf8 = new TextDecoder("utf-8", { fatal: true });
// Markup a browser would render as a document: such "text" files are refused outright.
const MARKUP = /<\s*(!doctype|html|head|body|script|iframe|object|embed|svg|math|meta|link|style|form|img|a\s)/i;

/** The type of a file from its first bytes, or null when it is not one we accept. */
function sniff(bytes: Uint8Array): UploadType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return TYPES.png!;
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return TYPES.jpg!;
  if (startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))) return TYPES.gif!;
  if (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)) return TYPES.webp!;
  if (startsWith(bytes, ascii("%PDF-"))) return TYPES.pdf!;
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return null;
  }
  if (/[\u0000-\u0008\u000e-\u001f\u007f]/.test(text)) return null;
  if (isSvg(text)) return TYPES.svg!;
  if (MARKUP.test(text)) return null;
  return TYPES.txt!;
}

function isSvg(text: string): boolean {
  // Skip a BOM, the XML declaration, comments, a doctype and whitespace; the root must be <svg.
  const head = text
    .replace(/^\uFEFF/, "")
    .replace(/^\s*<\?xml[^>]*\?>/i, "")
    .replace(/^(\s*<!--[\s\S]*?-->)*/, "")
    .replace(/^\s*<!doctype\s+svg[^>]*>/i, "")
    .replace(/^(\s*<!--[\s\S]*?-->)*/, "")
    .trimStart();
  return /^<svg[\s>]/i.test(head);
}

/** Served names: generated ones, or safe names that arrived through git. */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$/;

export function typeForName(filename: string): UploadType | null {
  const ext = filename.slice(filename.lastIndexOf(".") + 1).toLowerCase();
  return TYPES[EXT_ALIASES[ext] ?? ext] ?? null;
}

/** A stored upload as answered: the documented output schema's type. */
type UploadJson = z.infer<typeof uploadOutput>;

interface ServedUpload {
  bytes: Uint8Array;
  type: UploadType;
  filename: string;
}

export class Uploads {
  private readonly references: UploadReferences;

  constructor(private readonly ledger: ContentLedger) {
    this.references = new UploadReferences(ledger);
  }

  async store(access: ContentAccess, file: unknown): Promise<UploadJson> {
    assertRight(access, "edit");
    if (!(file instanceof Blob)) throw new ValidationError("file: a multipart field named file is required", "file");
    if (file.size > MAX_UPLOAD_BYTES) throw new PayloadTooLargeError("The file exceeds the 10 MB upload limit");
    if (file.size === 0) throw new ValidationError("file: is empty", "file");
    const bytes = new Uint8Array(await file.arrayBuffer());
    const type = sniff(bytes);
    if (!type) {
      throw new ValidationError("file: only PNG, JPEG, GIF, WebP, SVG, PDF and plain text files can be uploaded", "file");
    }
    const clientName = file instanceof File ? file.name : "";
    const filename = `${stemOf(clientName)}-${ulid().toLowerCase()}.${type.ext}`;
    const ws = access.workspace;
    const path = `assets/${filename}`;
    await this.ledger.exclusive(ws.id, () => {
      const dir = this.ledger.dir(ws.id);
      dir.ensure();
      writeFileAtomic(dir.resolveInside(path), bytes);
      // No page record or event: an upload is a file for git to commit, nothing more.
      this.ledger.notifyCommitted({ workspace_id: ws.id, kind: "upload", path, files: [path], contents: [{ path, data: bytes }], actor: access.actor, origin: access.origin });
    });
    return {
      filename,
      url: `/api/v1/content/${ws.slug}/uploads/${filename}`,
      content_type: type.mime,
      size: bytes.length,
    };
  }

  open(access: ContentAccess, filename: string): ServedUpload {
    assertRight(access, "read");
    const vis = access.visibility;
    if (vis.restricted) {
      // Used only by pages hidden from the reader: as missing as they are.
      const pages = this.references.pagesNaming(access.workspace.id, filename);
      if (pages.length > 0 && !pages.some((p) => vis.sees(p))) throw new NotFoundError("File not found");
    }
    return this.openIn(access.workspace.id, filename);
  }

  /** Reads an upload without a permission check: for callers that decided already (a published site's pages reference it). */
  openIn(workspaceId: string, filename: string): ServedUpload {
    const type = typeForName(filename);
    if (!SAFE_NAME.test(filename) || filename.length > 200 || !type) throw new NotFoundError("File not found");
    let abs: string;
    try {
      abs = this.ledger.dir(workspaceId).resolveInside(`assets/${filename}`);
    } catch {
      throw new NotFoundError("File not found");
    }
    try {
      if (!statSync(abs).isFile()) throw new NotFoundError("File not found");
      return { bytes: readFileSync(abs), type, filename };
    } catch (error) {
      if (error instanceof NotFoundError) throw error;
      throw new NotFoundError("File not found");
    }
  }
}

/** A readable, safe stem from the client's file name ("My Diagram (1).PNG" → "my-diagram-1"). */
function stemOf(name: string): string {
  const base = name.replace(/^.*[\\/]/, "").replace(/\.[^.]*$/, "");
  const stem = base
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "");
  return stem || "file";
}
