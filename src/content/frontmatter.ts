/**
 * A page file split into its parts, keeping the exact bytes of each so writes can change one part
 * and leave the rest as the user wrote it. Bun's YAML parser reads; nothing here ever re-serializes
 * a user's YAML: edits replace or insert whole lines of the frontmatter text.
 *
 * Layout: [bom] [block = "---\n" yaml "---\n"] [gap = "\n" or ""] body
 */
export interface SplitFile {
  bom: string;
  /** The whole frontmatter block including both delimiter lines, or "" when there is none. */
  block: string;
  /** The YAML text between the delimiters (each line ends with the file's newline). */
  yaml: string;
  /** Opening/closing delimiter lines as written (so `---\r\n` survives). */
  open: string;
  close: string;
  newline: "\n" | "\r\n";
  /** The one blank line between the block and the body, kept so a round trip is byte-exact. */
  gap: string;
  body: string;
}

const OPEN = /^---[ \t]*(\r?\n)/;

export function splitFile(text: string): SplitFile {
  let bom = "";
  if (text.startsWith("\uFEFF")) {
    bom = "\uFEFF";
    text = text.slice(1);
  }
  const open = OPEN.exec(text);
  const none = (): SplitFile => ({ bom, block: "", yaml: "", open: "", close: "", newline: "\n", gap: "", body: text });
  if (!open) return none();
  const newline = open[1] === "\r\n" ? "\r\n" : "\n";
  let pos = open[0].length;
  // The closing delimiter: a line that is exactly --- or ... (trailing blanks allowed).
  while (pos <= text.length) {
    const end = text.indexOf("\n", pos);
    const line = end < 0 ? text.slice(pos) : text.slice(pos, end + 1);
    if (/^(---|\.\.\.)[ \t]*\r?\n?$/.test(line)) {
      const afterClose = end < 0 ? text.length : end + 1;
      const rest = text.slice(afterClose);
      const gap = rest.startsWith("\r\n") ? "\r\n" : rest.startsWith("\n") ? "\n" : "";
      return {
        bom,
        block: text.slice(0, afterClose),
        yaml: text.slice(open[0].length, pos),
        open: open[0],
        close: line,
        newline,
        gap,
        body: rest.slice(gap.length),
      };
    }
    if (end < 0) break;
    pos = end + 1;
  }
  return none(); // an unclosed block is not frontmatter: the whole text is body
}

export function joinFile(parts: Pick<SplitFile, "bom" | "block" | "gap" | "body">): string {
  return parts.bom + parts.block + parts.gap + parts.body;
}

export type FrontmatterData = Record<string, unknown>;

export class FrontmatterError extends Error {}

/**
 * Parses the YAML of a split file; throws FrontmatterError for invalid YAML or a non-map value.
 *
 * Bun's native parser rather than gray-matter/js-yaml: measured on 1,000 pages it leaves ~10 MB
 * less resident memory after a reconcile (js-yaml's hot parser code is JIT-compiled and kept), it
 * never evaluates anything (no `!!js/function`, no `---js` engines), it refuses alias bombs
 * ("Excessive aliasing") that js-yaml would hand back as a graph whose JSON is gigabytes, and
 * it keeps dates as the text the user wrote instead of turning them into Date objects.
 */
export function parseYaml(yaml: string): FrontmatterData {
  if (yaml.trim() === "") return {};
  let data: unknown;
  try {
    data = Bun.YAML.parse(yaml);
  } catch (error) {
    throw new FrontmatterError((error as Error).message.split("\n")[0] ?? "invalid YAML");
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new FrontmatterError("frontmatter must be a YAML map");
  }
  return data as FrontmatterData;
}

// ---- minimal text edits --------------------------------------------------------------------

/** A YAML scalar for a string: plain when unambiguous, otherwise double-quoted (JSON is valid YAML). */
function yamlString(value: string): string {
  const plain =
    /^[\p{L}\p{N}][\p{L}\p{N} _.,'()/&+!?-]*$/u.test(value) &&
    !value.endsWith(" ") &&
    !/^(true|false|yes|no|on|off|null|y|n|~)$/i.test(value) &&
    !/^[-+]?(\d[\d_]*(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(value) &&
    !/^0[xob]/i.test(value) &&
    !/^\d{4}-\d{2}-\d{2}/.test(value);
  return plain ? value : JSON.stringify(value);
}

export function yamlValue(value: unknown): string {
  if (typeof value === "string") return yamlString(value);
  if (typeof value === "boolean" || typeof value === "number") return String(value);
  if (value === null) return "null";
  if (Array.isArray(value)) return `[${value.map((v) => yamlValue(v)).join(", ")}]`;
  return JSON.stringify(value);
}

interface KeyRange {
  start: number; // line index of `key:`
  end: number; // exclusive
}

function lines(yaml: string): string[] {
  if (yaml === "") return [];
  const out = yaml.split(/(?<=\n)/);
  return out;
}

/** The lines a top-level key's value occupies: its own line plus indented / list continuation lines. */
function findKey(ls: string[], key: string): KeyRange | null {
  const re = new RegExp(`^${key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}[ \\t]*:(?:[ \\t]|\\r?\\n|$)`);
  for (let i = 0; i < ls.length; i++) {
    if (!re.test(ls[i]!)) continue;
    let end = i + 1;
    let j = i + 1;
    while (j < ls.length) {
      const l = ls[j]!;
      if (/^[ \t]*\r?\n$/.test(l)) {
        j++;
        continue; // blank lines belong to the value only if a continuation follows
      }
      if (/^[ \t]/.test(l) || /^-([ \t]|\r?\n|$)/.test(l)) {
        end = j + 1;
        j++;
        continue;
      }
      break;
    }
    return { start: i, end };
  }
  return null;
}

/**
 * Sets top-level keys in the YAML text: an existing key's lines are replaced by one line (a block
 * list stays a block list with the same indentation), a missing key is appended. Lines of every
 * other key, comments and blank lines are left exactly as they were.
 */
export function setKeys(yaml: string, values: Record<string, unknown>, newline: string): string {
  const ls = lines(yaml);
  if (ls.length > 0 && !ls[ls.length - 1]!.endsWith("\n")) ls[ls.length - 1] += newline;
  for (const [key, value] of Object.entries(values)) {
    const range = findKey(ls, key);
    let replacement: string[];
    if (Array.isArray(value) && range && range.end - range.start > 1 && /^[ \t]*-/.test(ls[range.start + 1] ?? "")) {
      const indent = /^([ \t]*)-/.exec(ls[range.start + 1]!)![1]!;
      replacement = value.length === 0 ? [`${key}: []${newline}`] : [`${key}:${newline}`, ...value.map((v) => `${indent}- ${yamlValue(v)}${newline}`)];
    } else {
      replacement = [`${key}: ${yamlValue(value)}${newline}`];
    }
    if (range) ls.splice(range.start, range.end - range.start, ...replacement);
    else ls.push(...replacement);
  }
  return ls.join("");
}

/** Puts `id: <id>` into the YAML: replaces an existing id line, else inserts it as the first line. */
export function setIdLine(yaml: string, id: string, newline: string): string {
  const ls = lines(yaml);
  const range = findKey(ls, "id");
  if (range) {
    ls.splice(range.start, range.end - range.start, `id: ${id}${newline}`);
    return ls.join("");
  }
  return `id: ${id}${newline}` + yaml;
}

/** Rebuilds the block around new YAML text with the original delimiter lines. */
export function withYaml(split: SplitFile, yaml: string): SplitFile {
  const open = split.open || "---\n";
  let close = split.close || "---\n";
  if (!close.endsWith("\n")) close += split.newline;
  return { ...split, open, close, yaml, block: open + yaml + close };
}
