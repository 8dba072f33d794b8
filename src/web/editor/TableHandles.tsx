/**
 * Drag handles to reorder a table's rows and columns with the pointer. They are drawn over the
 * table the pointer is on — an overlay outside the document, so typing and long pages pay nothing
 * for them — one beside each body row (the header row stays first, as GFM reads it) and one above
 * each column. Dropping moves the row or column through the grid's own command (table-grid.ts).
 * The keyboard has the same moves (Alt+arrows, and the table's context menu), so the handles are
 * hidden from assistive technology.
 */
import { useEffect, useRef, useState } from "react";
import type { Editor } from "@tiptap/core";
import { TextSelection } from "@tiptap/pm/state";
import { moveLine } from "./table-grid.ts";

type Kind = "row" | "column";
interface Drag {
  kind: Kind;
  from: number;
  to: number;
}

const rowsOf = (table: HTMLTableElement) => Array.from(table.rows);
const columnsOf = (table: HTMLTableElement) => Array.from(table.rows[0]?.cells ?? []);

/** The index whose box holds `at` along the axis (the nearest end outside the boxes). */
function indexAt(boxes: DOMRect[], at: number, kind: Kind, min: number): number {
  for (let i = min; i < boxes.length; i++) {
    const b = boxes[i]!;
    if (at < (kind === "row" ? b.bottom : b.right)) return i;
  }
  return boxes.length - 1;
}

export function TableHandles(props: { editor: Editor; wrapper: React.RefObject<HTMLDivElement | null> }) {
  const { editor, wrapper } = props;
  const [table, setTable] = useState<HTMLTableElement | null>(null);
  const [, redraw] = useState(0);
  const [drag, setDrag] = useState<Drag | null>(null);
  const frame = useRef(0);

  useEffect(() => {
    const host = wrapper.current;
    if (!host) return;
    const onMove = (e: MouseEvent) => {
      const target = e.target as HTMLElement;
      if (target.closest(".table-handle")) return;
      const over = target.closest("table");
      const next = over && editor.view.dom.contains(over) && editor.isEditable ? (over as HTMLTableElement) : null;
      setTable((prev) => (prev === next ? prev : next));
      // Rows grow as text is typed: the handles follow on the next pointer move.
      if (next && !frame.current) frame.current = requestAnimationFrame(() => ((frame.current = 0), redraw((n) => n + 1)));
    };
    const onLeave = () => setTable(null);
    host.addEventListener("mousemove", onMove, { passive: true });
    host.addEventListener("mouseleave", onLeave);
    return () => {
      host.removeEventListener("mousemove", onMove);
      host.removeEventListener("mouseleave", onLeave);
      cancelAnimationFrame(frame.current);
    };
  }, [editor, wrapper]);

  const host = wrapper.current;
  if (!table || !host || !table.isConnected) return null;
  const origin = host.getBoundingClientRect();
  const box = table.getBoundingClientRect();
  const rows = rowsOf(table).map((r) => r.getBoundingClientRect());
  const columns = columnsOf(table).map((c) => c.getBoundingClientRect());

  const start = (kind: Kind, from: number) => (e: React.PointerEvent<HTMLSpanElement>) => {
    e.preventDefault();
    e.currentTarget.setPointerCapture(e.pointerId);
    setDrag({ kind, from, to: from });
  };
  const move = (e: React.PointerEvent) => {
    if (!drag) return;
    const boxes = (drag.kind === "row" ? rowsOf(table) : columnsOf(table)).map((el) => el.getBoundingClientRect());
    const to = indexAt(boxes, drag.kind === "row" ? e.clientY : e.clientX, drag.kind, drag.kind === "row" ? 1 : 0);
    if (to !== drag.to) setDrag({ ...drag, to });
  };
  const drop = () => {
    if (!drag) return;
    setDrag(null);
    if (drag.to === drag.from) return;
    // The caret goes into the dragged line's first cell, then the grid moves that line.
    const cell = drag.kind === "row" ? table.rows[drag.from]?.cells[0] : table.rows[0]?.cells[drag.from];
    if (!cell) return;
    const pos = editor.view.posAtDOM(cell, 0);
    editor.view.dispatch(editor.state.tr.setSelection(TextSelection.near(editor.state.doc.resolve(pos))));
    moveLine(editor, drag.kind, drag.to);
  };
  const at = (r: DOMRect) => ({ top: r.top - origin.top, left: r.left - origin.left });
  const target = drag && (drag.kind === "row" ? rows : columns)[drag.to];

  return (
    <div className="table-handles" aria-hidden="true">
      {rows.map((r, i) =>
        i === 0 ? null : (
          <span
            key={`r${i}`}
            className={`table-handle table-handle-row${drag?.kind === "row" && drag.from === i ? " dragging" : ""}`}
            data-row={i}
            title="Drag to move the row (Alt+↑/↓)"
            style={{ top: at(r).top + r.height / 2 - 9, left: at(box).left - 20 }}
            onPointerDown={start("row", i)}
            onPointerMove={move}
            onPointerUp={drop}
            onPointerCancel={() => setDrag(null)}
          >
            ⋮
          </span>
        ),
      )}
      {columns.map((c, i) => (
        <span
          key={`c${i}`}
          className={`table-handle table-handle-column${drag?.kind === "column" && drag.from === i ? " dragging" : ""}`}
          data-column={i}
          title="Drag to move the column (Alt+←/→)"
          style={{ top: at(box).top - 16, left: at(c).left + c.width / 2 - 10 }}
          onPointerDown={start("column", i)}
          onPointerMove={move}
          onPointerUp={drop}
          onPointerCancel={() => setDrag(null)}
        >
          ⋯
        </span>
      ))}
      {target && drag && drag.to !== drag.from && (
        <span
          className={`table-drop table-drop-${drag.kind}`}
          style={
            drag.kind === "row"
              ? { top: at(target).top + (drag.to > drag.from ? target.height : 0) - 1, left: at(box).left, width: box.width }
              : { left: at(target).left + (drag.to > drag.from ? target.width : 0) - 1, top: at(box).top, height: box.height }
          }
        />
      )}
    </div>
  );
}
