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
import { TableMap } from "@tiptap/pm/tables";

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
    const rect = map.findCell($from.before(d + 2) - start);
    return { start, map, row: rect.top, col: rect.left };
  }
  return null;
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

const GridKeys = Extension.create({
  name: "tableGridKeys",
  addKeyboardShortcuts() {
    const down = () => {
      if (!inTable(this.editor)) return false;
      // Down a row like a spreadsheet; from the last row, into a new one.
      if (!cellBelow(this.editor) && this.editor.commands.addRowAfter()) cellBelow(this.editor);
      return true;
    };
    return {
      Enter: down,
      "Shift-Enter": () => inTable(this.editor),
      "Mod-Alt-ArrowDown": () => inTable(this.editor) && this.editor.chain().focus().addRowAfter().run(),
      "Mod-Alt-ArrowUp": () => inTable(this.editor) && this.editor.chain().focus().addRowBefore().run(),
      "Mod-Alt-ArrowRight": () => inTable(this.editor) && this.editor.chain().focus().addColumnAfter().run(),
      "Mod-Alt-ArrowLeft": () => inTable(this.editor) && this.editor.chain().focus().addColumnBefore().run(),
      "Mod-Alt-Backspace": () => inTable(this.editor) && this.editor.chain().focus().deleteRow().run(),
      "Mod-Shift-Alt-Backspace": () => inTable(this.editor) && this.editor.chain().focus().deleteColumn().run(),
    };
  },
  addProseMirrorPlugins() {
    return [
      new Plugin({
        props: {
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
