/**
 * The table's context menu: right-click on a cell, or Shift+F10 / the menu key with the caret in
 * a table. It holds the grid's commands — insert, move and delete rows and columns, the column's
 * alignment — for the caret's cell. Arrows, Home and End move in it, Enter runs an item, Esc goes
 * back to the cell. A move the grid cannot make (the header row, an edge) is shown disabled.
 */
import { useEffect, useLayoutEffect, useRef } from "react";
import type { Editor } from "@tiptap/core";
import { alignColumn, columnAlign, moveLineBy, tableCaret } from "./table-grid.ts";

interface Item {
  label: string;
  run(): unknown;
  disabled?: boolean;
  checked?: boolean;
}

export function TableMenu(props: { editor: Editor; at: { left: number; top: number }; onClose(): void }) {
  const { editor } = props;
  const menu = useRef<HTMLDivElement>(null);
  const at = tableCaret(editor);
  const align = columnAlign(editor);
  const chain = () => editor.chain().focus();
  const groups: Item[][] = at
    ? [
        [
          { label: "Insert row above", run: () => chain().addRowBefore().run(), disabled: at.row === 0 },
          { label: "Insert row below", run: () => chain().addRowAfter().run() },
          { label: "Insert column left", run: () => chain().addColumnBefore().run() },
          { label: "Insert column right", run: () => chain().addColumnAfter().run() },
        ],
        [
          { label: "Move row up", run: () => moveLineBy(editor, "row", -1), disabled: at.row <= 1 },
          { label: "Move row down", run: () => moveLineBy(editor, "row", 1), disabled: at.row === 0 || at.row >= at.rows - 1 },
          { label: "Move column left", run: () => moveLineBy(editor, "column", -1), disabled: at.col === 0 },
          { label: "Move column right", run: () => moveLineBy(editor, "column", 1), disabled: at.col >= at.cols - 1 },
        ],
        [
          { label: "Delete row", run: () => chain().deleteRow().run(), disabled: at.row === 0 },
          { label: "Delete column", run: () => chain().deleteColumn().run(), disabled: at.cols === 1 },
        ],
        [
          { label: "Align column left", run: () => alignColumn(editor, "left"), checked: align === "left" },
          { label: "Align column center", run: () => alignColumn(editor, "center"), checked: align === "center" },
          { label: "Align column right", run: () => alignColumn(editor, "right"), checked: align === "right" },
          { label: "No column alignment", run: () => alignColumn(editor, null), checked: align === null },
        ],
      ]
    : [];

  useEffect(() => {
    menu.current?.querySelector<HTMLButtonElement>("button:not(:disabled)")?.focus();
  }, []);
  // Kept on the screen (a phone's width, a cell near the bottom): moved back by what overflows.
  useLayoutEffect(() => {
    const el = menu.current;
    if (!el) return;
    const box = el.getBoundingClientRect();
    const over = box.right - (window.innerWidth - 8);
    if (over > 0) el.style.left = `${Math.max(0, props.at.left - over)}px`;
    const below = box.bottom - (window.innerHeight - 8);
    if (below > 0 && box.top - below > 8) el.style.top = `${props.at.top - below}px`;
  }, [props.at.left, props.at.top]);

  const close = (refocus: boolean) => {
    props.onClose();
    if (refocus) editor.commands.focus();
  };
  const onKeyDown = (e: React.KeyboardEvent) => {
    const buttons = Array.from(menu.current?.querySelectorAll<HTMLButtonElement>("button:not(:disabled)") ?? []);
    const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const go = (n: number) => buttons[(n + buttons.length) % buttons.length]?.focus();
    if (e.key === "ArrowDown") go(i + 1);
    else if (e.key === "ArrowUp") go(i - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(buttons.length - 1);
    else if (e.key === "Escape" || e.key === "Tab") close(true);
    else return;
    e.preventDefault();
  };
  return (
    <div
      ref={menu}
      className="table-menu"
      role="menu"
      aria-label="Table"
      style={{ left: props.at.left, top: props.at.top }}
      onKeyDown={onKeyDown}
      onBlur={(e) => {
        // A click elsewhere closes the menu; moving between its items does not.
        if (!menu.current?.contains(e.relatedTarget as Node | null)) close(false);
      }}
    >
      {groups.map((group, g) => (
        <div role="group" key={g}>
          {group.map((item) => (
            <button
              key={item.label}
              type="button"
              role={item.checked === undefined ? "menuitem" : "menuitemradio"}
              aria-checked={item.checked}
              disabled={item.disabled}
              onMouseDown={(e) => e.preventDefault()}
              onClick={() => {
                props.onClose();
                item.run();
              }}
            >
              {item.label}
            </button>
          ))}
        </div>
      ))}
    </div>
  );
}
