/**
 * One editing session of one Markdown text in the rich editor: `open` turns the text into the
 * editor's document; once the editor has loaded it, `rebase` records the editor's own view of every
 * block as the baseline; `save` writes the current document back, changing only changed blocks.
 * Switching to raw mode and back re-opens from the raw text, so nothing typed in either is lost.
 */
import { blockToNode } from "./to-doc.ts";
import { mergeDocument, type Baseline } from "./merge.ts";
import { nodeKey, type PMNode } from "./pm.ts";
import { joinBlocks, splitBlocks, type SplitDoc } from "./split.ts";

export class MarkdownSession {
  private baseline: Baseline;
  readonly source: string;

  constructor(source: string) {
    this.source = source;
    const doc = splitBlocks(source);
    const nodes = doc.blocks.map(blockToNode);
    this.baseline = { doc, keys: nodes.map(nodeKey), nodes };
    this.initial = { type: "doc", content: nodes.length ? nodes : [{ type: "paragraph" }] };
  }

  /** The document to load into the editor. */
  readonly initial: PMNode;

  get split(): SplitDoc {
    return this.baseline.doc;
  }

  /**
   * Records the editor's document right after loading as the baseline. Returns false when the
   * editor did not keep one top-level node per block (the caller falls back to raw mode).
   */
  rebase(editorDoc: PMNode): boolean {
    const nodes = editorDoc.content ?? [];
    const blocks = this.baseline.doc.blocks;
    const count = blocks.length === 0 ? nodes.filter((n) => !isEmptyParagraph(n)).length === 0 : nodes.length === blocks.length;
    if (!count) return false;
    if (blocks.length > 0) this.baseline = { doc: this.baseline.doc, keys: nodes.map(nodeKey), nodes };
    return true;
  }

  /** Markdown for the editor's current document. */
  save(editorDoc: PMNode): string {
    const nodes = editorDoc.content ?? [];
    if (this.baseline.doc.blocks.length === 0 && nodes.every(isEmptyParagraph)) return this.source;
    return mergeDocument(this.baseline, nodes);
  }
}

function isEmptyParagraph(n: PMNode): boolean {
  return n.type === "paragraph" && (n.content ?? []).length === 0;
}

