import { sha256Hex } from "../core/crypto.ts";
import { isUlid } from "../core/ids.ts";
import { FrontmatterError, parseYaml, splitFile, type FrontmatterData, type SplitFile } from "./frontmatter.ts";

/** What the ledger knows about a page file after reading it: its parts, metadata and hashes. */
export interface PageFile {
  text: string;
  split: SplitFile;
  data: FrontmatterData;
  /** Set when the YAML could not be parsed; the page is still listed, titled from its file name. */
  yamlError: string | null;
  meta: PageMeta;
  contentHash: string;
  frontmatterHash: string;
}

export interface PageMeta {
  id: string | null;
  title: string;
  description: string;
  tags: string[];
  status: string;
  publish: boolean;
  navOrder: number | null;
}

export const hashOf = (text: string): string => `sha256:${sha256Hex(text)}`;

export function readPageFile(text: string, path: string): PageFile {
  const split = splitFile(text);
  let data: FrontmatterData = {};
  let yamlError: string | null = null;
  try {
    data = parseYaml(split.yaml);
  } catch (error) {
    yamlError = error instanceof FrontmatterError ? error.message : String(error);
  }
  return {
    text,
    split,
    data,
    yamlError,
    meta: metaFrom(data, path),
    contentHash: hashOf(text),
    frontmatterHash: hashOf(split.block),
  };
}

function metaFrom(data: FrontmatterData, path: string): PageMeta {
  const title = typeof data.title === "string" && data.title.trim() !== "" ? data.title.trim() : scalarText(data.title) ?? titleFromPath(path);
  const status = typeof data.status === "string" && ["draft", "published", "archived"].includes(data.status) ? data.status : "draft";
  const nav = typeof data.nav_order === "number" && Number.isFinite(data.nav_order) ? Math.trunc(data.nav_order) : null;
  return {
    id: isUlid(data.id) ? data.id : null,
    title,
    description: typeof data.description === "string" ? data.description : (scalarText(data.description) ?? ""),
    tags: tagsFrom(data.tags),
    status,
    publish: data.publish === true || data.publish === "true",
    navOrder: nav,
  };
}

function scalarText(v: unknown): string | null {
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  return null;
}

/** Tags are a YAML list or a comma-separated string (docs/architecture.md §5). */
function tagsFrom(v: unknown): string[] {
  const raw = Array.isArray(v) ? v.map((t) => scalarText(t) ?? (typeof t === "string" ? t : "")) : typeof v === "string" ? v.split(",") : [];
  const seen = new Set<string>();
  for (const t of raw) {
    const tag = t.trim();
    if (tag !== "") seen.add(tag);
  }
  return [...seen];
}

/** "guides/getting-started.md" → "Getting started"; a folder's index.md takes the folder's name. */
export function titleFromPath(path: string): string {
  const parts = path.replace(/\.md$/i, "").split("/");
  let name = parts[parts.length - 1]!;
  if (name.toLowerCase() === "index" && parts.length > 1) name = parts[parts.length - 2]!;
  const words = name.replace(/[-_]+/g, " ").trim();
  return words === "" ? "Untitled" : words.charAt(0).toUpperCase() + words.slice(1);
}
