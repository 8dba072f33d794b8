/**
 * The ProseMirror document as JSON (what Tiptap's getJSON/setContent speak). The Markdown module
 * works on this plain shape so it runs, and is tested, without a browser.
 */
export interface PMMark {
  type: string;
  attrs?: Record<string, unknown>;
}

export interface PMNode {
  type: string;
  attrs?: Record<string, unknown>;
  content?: PMNode[];
  marks?: PMMark[];
  text?: string;
}

/** A stable key for comparing nodes: keys sorted, so attribute order never matters. */
export function nodeKey(node: PMNode): string {
  return JSON.stringify(node, (_k, value) => {
    if (value && typeof value === "object" && !Array.isArray(value)) {
      const sorted: Record<string, unknown> = {};
      for (const k of Object.keys(value).sort()) if (value[k] !== undefined) sorted[k] = value[k];
      return sorted;
    }
    return value;
  });
}
