/**
 * Block groups: a long page's blocks held in invisible groups of a few dozen, so the editable
 * element has a few dozen children instead of a thousand. Chromium's cost per key grows with the
 * editable's direct children even with `content-visibility` (the caret's text offset, the layout of
 * the one block holding every child, the rule's own observer): 1,000 paragraphs typed into cost
 * 7.0 ms of main thread a key as direct children and 4.3 ms in 50 groups of 20, a bare
 * contenteditable; Tiptap 9.4 → 5.4 ms (docs/decisions/editor-blocks.md, "Eighth pass").
 *
 * A group is structure for the browser, not for the file: the page's Markdown is written from the
 * blocks in order (`pageBlocks`), whatever groups hold them, and a group is never read from pasted
 * HTML. Short pages are not grouped. Where a group's edge would change what an edit does, the edge
 * goes first: Backspace at the start of a group's first block and Delete at the end of its last
 * join the two groups (no undo step), then act as on a page without groups; commands that wrap a
 * range (lists, quotes) join the groups the selection spans. Groups that grew past twice their size
 * are split again in idle time.
 */
import { commands as core, Extension, Node, type CommandProps, type Editor } from "@tiptap/core";
import type { Node as DocNode, ResolvedPos } from "@tiptap/pm/model";
import type { EditorState, Transaction } from "@tiptap/pm/state";
import type { EditorView } from "@tiptap/pm/view";

const GROUP = "blockGroup";
/** Blocks per group as a page opens: about √1,000, the fewest children at both levels. */
const GROUP_BLOCKS = 24;
/** Pages of more blocks than this are grouped. */
export const GROUPED_FROM = 100;

const isGroup = (node: DocNode | null | undefined) => node?.type.name === GROUP;

/** The page's top-level blocks in order, inside groups or not: what its Markdown is written from. */
export function pageBlocks(doc: DocNode): DocNode[] {
  const blocks: DocNode[] = [];
  doc.forEach((child) => {
    if (isGroup(child)) child.forEach((block) => void blocks.push(block));
    else blocks.push(child);
  });
  return blocks;
}

/** True when both documents hold equal blocks in the same order (however they are grouped). */
export function sameBlocks(a: DocNode, b: DocNode): boolean {
  if (a === b || a.eq(b)) return true;
  const x = pageBlocks(a);
  const y = pageBlocks(b);
  return x.length === y.length && x.every((n, i) => n === y[i] || n.eq(y[i]!));
}

/** The depth of the page's block a position is in (1: a top-level block; 2: a block inside its group). */
export function blockDepth($pos: ResolvedPos): number {
  return $pos.depth >= 2 && isGroup($pos.node(1)) ? 2 : 1;
}

/** `blocks` as groups of GROUP_BLOCKS, as JSON (the editor's document as it opens). */
export function groupJson<T>(blocks: T[]): Array<{ type: string; content: T[] }> {
  const groups: Array<{ type: string; content: T[] }> = [];
  for (let i = 0; i < blocks.length; i += GROUP_BLOCKS) groups.push({ type: GROUP, content: blocks.slice(i, i + GROUP_BLOCKS) });
  return groups;
}

/**
 * Appends blocks to a grouped document: the last group is filled to GROUP_BLOCKS, the rest come in
 * new groups.
 */
export function appendGrouped(tr: Transaction, blocks: DocNode[]): void {
  const type = tr.doc.type.schema.nodes[GROUP]!;
  const last = tr.doc.lastChild;
  let rest = blocks;
  if (last?.type === type && last.childCount < GROUP_BLOCKS) {
    const room = GROUP_BLOCKS - last.childCount;
    tr.insert(tr.doc.content.size - 1, rest.slice(0, room));
    rest = rest.slice(room);
  }
  const groups: DocNode[] = [];
  for (let i = 0; i < rest.length; i += GROUP_BLOCKS) groups.push(type.create(null, rest.slice(i, i + GROUP_BLOCKS)));
  if (groups.length > 0) tr.insert(tr.doc.content.size, groups);
}

/** Position of the boundary before the doc's `index`th child. */
const boundary = (doc: DocNode, index: number): number => doc.resolve(0).posAtIndex(index);

/** Joins the groups from `first` to `last` (indices in the document) into one. */
function joinGroups(tr: Transaction, first: number, last: number): void {
  for (let i = last; i > first; i--) {
    if (!isGroup(tr.doc.child(i)) || !isGroup(tr.doc.child(i - 1))) continue;
    tr.join(boundary(tr.doc, i));
  }
}

/** Joins the groups a selection spans, so a command over its blocks finds them in one parent. */
function joinSpannedGroups(tr: Transaction): void {
  const { $from, $to } = tr.selection;
  const last = Math.min($to.index(0), tr.doc.childCount - 1);
  if (last > $from.index(0)) joinGroups(tr, $from.index(0), last);
}

/** The caret at the very start of a group other than the first (`before`), or at the very end of one other than the last. */
function atGroupEdge(state: EditorState, side: "before" | "after"): number | null {
  const { $from, empty } = state.selection;
  if (!empty || $from.depth < 2 || !isGroup($from.node(1)) || !$from.parent.isTextblock) return null;
  if (side === "before") {
    if ($from.index(0) === 0 || $from.parentOffset !== 0) return null;
    for (let d = 1; d < $from.depth; d++) if ($from.index(d) !== 0) return null;
    return $from.index(0) - 1;
  }
  if ($from.index(0) >= state.doc.childCount - 1 || $from.parentOffset !== $from.parent.content.size) return null;
  for (let d = 1; d < $from.depth; d++) if ($from.index(d) !== $from.node(d).childCount - 1) return null;
  return $from.index(0);
}

/** Joins the caret's group with its neighbour when the caret is at the edge a key would cross; never an undo step. */
function joinAtEdge(view: EditorView, side: "before" | "after"): false {
  const first = atGroupEdge(view.state, side);
  if (first !== null) {
    const tr = view.state.tr;
    joinGroups(tr, first, first + 1);
    view.dispatch(tr.setMeta("addToHistory", false));
  }
  // The key goes on to the other handlers, which now find both blocks in one group.
  return false;
}

/**
 * Splits groups that grew past twice GROUP_BLOCKS (Enter pressed many times, a long paste, groups
 * joined by edits) back into groups of GROUP_BLOCKS. Returns the transaction, or null when none did.
 */
export function rebalance(state: EditorState): Transaction | null {
  const tr = state.tr;
  for (let i = state.doc.childCount - 1; i >= 0; i--) {
    const group = state.doc.child(i);
    if (!isGroup(group) || group.childCount <= 2 * GROUP_BLOCKS) continue;
    const start = boundary(state.doc, i) + 1;
    const cuts: number[] = [];
    let pos = start;
    for (let k = 0; k < group.childCount; k++) {
      if (k > 0 && k % GROUP_BLOCKS === 0) cuts.push(pos);
      pos += group.child(k).nodeSize;
    }
    // From the last cut back, so the earlier positions stay where they were.
    for (const cut of cuts.reverse()) tr.split(cut, 1);
  }
  return tr.docChanged ? tr.setMeta("addToHistory", false) : null;
}

/** The group: a plain `<div>` with no parse rule (nothing pasted becomes one). */
export const BlockGroup = Node.create({
  name: GROUP,
  content: "block+",
  selectable: false,
  draggable: false,
  parseHTML: () => [],
  renderHTML: () => ["div", { class: "block-group" }, 0],
});

/** The document: blocks, or groups of blocks (a long page). */
export const GroupedDocument = Node.create({ name: "doc", topNode: true, content: `block+ | ${GROUP}+` });

/** Backspace and Delete at a group's edge: first of every key handler, so each finds the edge gone. */
export const GroupEdgeKeys = Extension.create({
  name: "blockGroupKeys",
  priority: 10_000,
  addKeyboardShortcuts() {
    const before = ({ editor }: { editor: Editor }) => joinAtEdge(editor.view, "before");
    const after = ({ editor }: { editor: Editor }) => joinAtEdge(editor.view, "after");
    // The keys Tiptap's own keymap gives its Backspace and Delete handling (macOS's included).
    return {
      Backspace: before, "Shift-Backspace": before, "Mod-Backspace": before, "Alt-Backspace": before, "Ctrl-h": before,
      Delete: after, "Mod-Delete": after, "Alt-Delete": after, "Ctrl-d": after, "Alt-d": after, "Ctrl-Alt-Backspace": after,
    };
  },
});

type Props = CommandProps;
/**
 * The commands that wrap a range of blocks, with the groups the selection spans joined first (in
 * the same transaction, so one undo takes both back); an Enter in an empty block at a group's middle
 * makes a new paragraph as everywhere else, where ProseMirror's `liftEmptyBlock` would split the group.
 * Last of all extensions, so these replace Tiptap's commands of the same names.
 */
export const GroupCommands = Extension.create({
  name: "blockGroupCommands",
  priority: 1,
  addCommands() {
    return {
      wrapIn: (...args: Parameters<typeof core.wrapIn>) => (props: Props) => (joinSpannedGroups(props.tr), core.wrapIn(...args)(props)),
      toggleWrap: (...args: Parameters<typeof core.toggleWrap>) => (props: Props) => (joinSpannedGroups(props.tr), core.toggleWrap(...args)(props)),
      wrapInList: (...args: Parameters<typeof core.wrapInList>) => (props: Props) => (joinSpannedGroups(props.tr), core.wrapInList(...args)(props)),
      toggleList: (...args: Parameters<typeof core.toggleList>) => (props: Props) => (joinSpannedGroups(props.tr), core.toggleList(...args)(props)),
      liftEmptyBlock: () => (props: Props) => {
        const { $from } = props.state.selection;
        if ($from.depth === 2 && isGroup($from.node(1))) return false;
        return core.liftEmptyBlock()(props);
      },
    };
  },
});
