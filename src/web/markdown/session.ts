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
  private readonly doc: SplitDoc;
  /** The editor's node for each block, or how to get them (read on first use). */
  private nodes: PMNode[] | (() => PMNode[]);
  private built: Baseline | null = null;
  readonly source: string;

  /** Each block's node, converted when first asked for (a long page opens a screenful first). */
  private readonly converted: (PMNode | undefined)[];
  private whole: PMNode | null = null;

  constructor(source: string) {
    this.source = source;
    this.doc = splitBlocks(source);
    this.converted = new Array<PMNode | undefined>(this.doc.blocks.length);
    this.nodes = () => this.blockNodes(0, this.doc.blocks.length);
  }

  /** How many blocks the text holds (the editor's document has one top-level node per block). */
  get blockCount(): number {
    return this.doc.blocks.length;
  }

  /** The editor's nodes for blocks `from` to `to` (exclusive), each converted once. */
  blockNodes(from: number, to: number): PMNode[] {
    const out: PMNode[] = [];
    for (let i = from; i < Math.min(to, this.converted.length); i++) out.push((this.converted[i] ??= blockToNode(this.doc.blocks[i]!)));
    return out;
  }

  /** The whole document to load into the editor. */
  get initial(): PMNode {
    if (!this.whole) {
      const nodes = this.blockNodes(0, this.blockCount);
      this.whole = { type: "doc", content: nodes.length ? nodes : [{ type: "paragraph" }] };
    }
    return this.whole;
  }

  get split(): SplitDoc {
    return this.doc;
  }

  /**
   * Records the editor's document right after loading as the baseline. Returns false when the
   * editor did not keep one top-level node per block (the caller falls back to raw mode).
   */
  rebase(editorDoc: PMNode): boolean {
    const nodes = editorDoc.content ?? [];
    return this.rebaseLater(nodes.length, () => nodes);
  }

  /**
   * `rebase` for an editor holding `count` top-level nodes, whose JSON `content` gives. It is read
   * when the baseline is first needed (a save, or `prepare`), not while the page opens: converting
   * and keying a thousand blocks is a good part of opening a long page.
   */
  rebaseLater(count: number, content: () => PMNode[]): boolean {
    const blocks = this.doc.blocks;
    if (blocks.length === 0) return content().filter((n) => !isEmptyParagraph(n)).length === 0;
    if (count !== blocks.length) return false;
    this.nodes = content;
    this.built = null;
    return true;
  }

  /** Builds the baseline now (when the page is idle), so the first save after an edit does not. */
  prepare(): void {
    void this.baseline;
  }

  private get baseline(): Baseline {
    if (!this.built) {
      const nodes = typeof this.nodes === "function" ? this.nodes() : this.nodes;
      this.nodes = nodes;
      this.built = { doc: this.doc, keys: nodes.map(nodeKey), nodes };
    }
    return this.built;
  }

  /** Markdown for the editor's current document. */
  save(editorDoc: PMNode): string {
    const nodes = editorDoc.content ?? [];
    if (this.doc.blocks.length === 0 && nodes.every(isEmptyParagraph)) return this.source;
    return mergeDocument(this.baseline, nodes);
  }
}

function isEmptyParagraph(n: PMNode): boolean {
  return n.type === "paragraph" && (n.content ?? []).length === 0;
}

