/**
 * GFM tables as grids in the rich editor. A cell holds one paragraph (a GFM cell is one line of
 * inline content), so Enter and Shift+Enter move down a row instead of breaking the line; Tab and
 * Shift+Tab (Tiptap) and the arrow keys (prosemirror-tables) move between cells. Alignment is
 * shown through a data attribute, never an inline style, so the page's CSP stays strict. A block of
 * cells copied from a spreadsheet as text (tab-separated) is pasted into the grid cell by cell.
 */
import { Extension, type Editor } from "@tiptap/core";
import { Table, TableCell, TableHeader, TableRow } from "@tiptap/extension-table";
import { Plugin, TextSelection } from "@tiptap/pm/state";
import { TableMap, moveTableColumn, moveTableRow } from "@tiptap/pm/tables";

type Align = "left" | "center" | "right" | null;

const alignAttribute = {
  default: null,
  parseHTML: (el: HTMLElement) => {
    const a = (el.getAttribute("data-align") || el.style.textAlign || el.getAttribute("align") || "").toLowerCase();
    return a === "left" || a === "center" || a === "right" ? a : null;
  },
  renderHTML: (attrs: Record<string, unknown>) => (attrs.align ? { "data-align": String(attrs.align) } : {}),
};

const cellAttributes = (parent: (() => Record<string, unknown>) | undefined) => ({ ...parent?.(), align: alignAttribute });

const GridCell = TableCell.extend({
  content: "paragraph",
  addAttributes() {
    return cellAttributes(this.parent as () => Record<string, unknown>);
  },
});

const GridHeader = TableHeader.extend({
  content: "paragraph",
  addAttributes() {
    return cellAttributes(this.parent as () => Record<string, unknown>);
  },
});

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** Tab-separated text as an HTML table, which prosemirror-tables pastes into the cells under the caret. */
function tsvToHtml(text: string): string | null {
  const lines = text.replace(/\r\n?/g, "\n").replace(/\n$/, "").split("\n");
  if (!lines.some((l) => l.includes("\t"))) return null;
  const rows = lines.map((l) => `<tr>${l.split("\t").map((c) => `<td><p>${escapeHtml(c)}</p></td>`).join("")}</tr>`);
  return `<table><tbody>${rows.join("")}</tbody></table>`;
}

const inTable = (editor: Editor) => editor.isActive("table");

/** Sets the alignment of the caret's column, every row of it (GFM aligns whole columns). */
export function alignColumn(editor: Editor, align: Align): boolean {
  const at = caretCell(editor);
  if (!at) return false;
  const tr = editor.state.tr;
  for (let row = 0; row < at.map.height; row++) {
    const pos = at.start + at.map.map[row * at.map.width + at.col]!;
    const cell = tr.doc.nodeAt(pos);
    if (cell) tr.setNodeMarkup(pos, undefined, { ...cell.attrs, align });
  }
  editor.view.dispatch(tr);
  editor.commands.focus();
  return true;
}

/** Where the caret's cell is: the table's start, its map, the cell's row and column. */
function caretCell(editor: Editor) {
  const $from = editor.state.selection.$from;
  for (let d = $from.depth; d > 0; d--) {
    const node = $from.node(d);
    if (node.type.name !== "table") continue;
    const start = $from.start(d);
    const map = TableMap.get(node);
    const cellPos = $from.before(d + 2);
    const rect = map.findCell(cellPos - start);
    return { start, map, row: rect.top, col: rect.left, offset: $from.pos - cellPos };
  }
  return null;
}

/**
 * Moves a body row (`row` ≥ 1: the header row stays the header, as GFM reads the first row) or a
 * column to another index; the caret stays in the same cell, at the same place in its text.
 * Alignment belongs to the column, so it moves with it. Given no index, the caret's row or column.
 */
export function moveLine(editor: Editor, kind: "row" | "column", to: number, from?: number): boolean {
  const at = caretCell(editor);
  if (!at) return false;
  const origin = from ?? (kind === "row" ? at.row : at.col);
  const size = kind === "row" ? at.map.height : at.map.width;
  if (origin === to || to < 0 || to >= size || (kind === "row" && (origin < 1 || to < 1))) return false;
  const command = (kind === "row" ? moveTableRow : moveTableColumn)({ from: origin, to, select: false, pos: at.start });
  if (!command(editor.state, editor.view.dispatch)) return false;
  // Back into the cell the caret was in, wherever it went.
  const follows = (i: number) => (i === origin ? to : origin < to && i > origin && i <= to ? i - 1 : origin > to && i >= to && i < origin ? i + 1 : i);
  const row = kind === "row" ? follows(at.row) : at.row;
  const col = kind === "column" ? follows(at.col) : at.col;
  const table = editor.state.doc.resolve(at.start).parent;
  const map = TableMap.get(table);
  const cellPos = at.start + map.map[row * map.width + col]!;
  const cell = editor.state.doc.nodeAt(cellPos);
  if (cell) editor.view.dispatch(editor.state.tr.setSelection(TextSelection.create(editor.state.doc, Math.min(cellPos + at.offset, cellPos + cell.nodeSize - 2))).scrollIntoView());
  editor.commands.focus();
  return true;
}

/** The caret's cell in its table: row and column, and the table's size; null outside a table. */
export function tableCaret(editor: Editor): { row: number; col: number; rows: number; cols: number } | null {
  const at = caretCell(editor);
  return at && { row: at.row, col: at.col, rows: at.map.height, cols: at.map.width };
}

/** Moves the caret's row or column one place (`delta` -1 or 1). */
export function moveLineBy(editor: Editor, kind: "row" | "column", delta: number): boolean {
  const at = caretCell(editor);
  if (!at) return false;
  return moveLine(editor, kind, (kind === "row" ? at.row : at.col) + delta);
}

/** Moves the caret to the end of the cell below, as Enter does in a spreadsheet. */
function cellBelow(editor: Editor): boolean {
  const at = caretCell(editor);
  if (!at || at.row + 1 >= at.map.height) return false;
  const pos = at.start + at.map.map[(at.row + 1) * at.map.width + at.col]!;
  const cell = editor.state.doc.nodeAt(pos);
  if (!cell) return false;
  editor.view.dispatch(editor.state.tr.setSelection(TextSelection.near(editor.state.doc.resolve(pos + cell.nodeSize - 1), -1)).scrollIntoView());
  return true;
}

/** The caret's column alignment (for the toolbar's pressed state). */
export function columnAlign(editor: Editor): Align {
  return (editor.getAttributes("tableCell").align ?? editor.getAttributes("tableHeader").align ?? null) as Align;
}

export interface TableGridStorage {
  /** Set by the editor: opens the table's context menu at a point of the viewport. */
  openMenu: ((at: { x: number; y: number }) => void) | null;
}

const GridKeys = Extension.create<object, TableGridStorage>({
  name: "tableGridKeys",
  addStorage: () => ({ openMenu: null }),
  addKeyboardShortcuts() {
    // The keyboard's way to the context menu, under the caret's cell.
    const menu = () => {
      if (!inTable(this.editor) || !this.storage.openMenu || !this.editor.isEditable) return false;
      const c = this.editor.view.coordsAtPos(this.editor.state.selection.from);
      this.storage.openMenu({ x: c.left, y: c.bottom });
      return true;
    };
    const down = () => {
      if (!inTable(this.editor)) return false;
      // Down a row like a spreadsheet; from the last row, into a new one.
      if (!cellBelow(this.editor) && this.editor.commands.addRowAfter()) cellBelow(this.editor);
      return true;
    };
    return {
      Enter: down,
      "Shift-Enter": () => inTable(this.editor),
      "Shift-F10": menu,
      ContextMenu: menu,
      "Mod-Alt-ArrowDown": () => inTable(this.editor) && this.editor.chain().focus().addRowAfter().run(),
      "Mod-Alt-ArrowUp": () => inTable(this.editor) && this.editor.chain().focus().addRowBefore().run(),
      "Mod-Alt-ArrowRight": () => inTable(this.editor) && this.editor.chain().focus().addColumnAfter().run(),
      "Mod-Alt-ArrowLeft": () => inTable(this.editor) && this.editor.chain().focus().addColumnBefore().run(),
      "Mod-Alt-Backspace": () => inTable(this.editor) && this.editor.chain().focus().deleteRow().run(),
      "Mod-Shift-Alt-Backspace": () => inTable(this.editor) && this.editor.chain().focus().deleteColumn().run(),
      // Reordering without a mouse: Alt+arrows move the caret's row or column (the page's
      // Alt+← "back" never fires inside a table: the key is taken here).
      "Alt-ArrowUp": () => inTable(this.editor) && (moveLineBy(this.editor, "row", -1) || true),
      "Alt-ArrowDown": () => inTable(this.editor) && (moveLineBy(this.editor, "row", 1) || true),
      "Alt-ArrowLeft": () => inTable(this.editor) && (moveLineBy(this.editor, "column", -1) || true),
      "Alt-ArrowRight": () => inTable(this.editor) && (moveLineBy(this.editor, "column", 1) || true),
    };
  },
  addProseMirrorPlugins() {
    return [
      new Plugin({
        props: {
          handleDOMEvents: {
            // Right-click on a cell: the caret goes there, and the table's menu opens instead of the browser's.
            contextmenu: (view, event) => {
              const cell = (event.target as HTMLElement | null)?.closest?.("td, th");
              const pos = view.posAtCoords({ left: event.clientX, top: event.clientY });
              if (!cell || !view.dom.contains(cell) || !pos || !this.storage.openMenu || !view.editable) return false;
              event.preventDefault();
              view.dispatch(view.state.tr.setSelection(TextSelection.near(view.state.doc.resolve(pos.pos))));
              this.storage.openMenu({ x: event.clientX, y: event.clientY });
              return true;
            },
          },
          handlePaste: (view, event) => {
            if (!inTable(this.editor)) return false;
            const data = event.clipboardData;
            if (!data || /<table[\s>]/i.test(data.getData("text/html"))) return false;
            const html = tsvToHtml(data.getData("text/plain"));
            if (!html) return false;
            event.preventDefault();
            // A paste of its own (no clipboard data), so this handler does not see it again.
            view.pasteHTML(html);
            return true;
          },
        },
      }),
    ];
  },
});

export const TableGrid = [Table.configure({ resizable: false, allowTableNodeSelection: false }), TableRow, GridHeader, GridCell, GridKeys];
