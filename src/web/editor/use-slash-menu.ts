/**
 * The slash menu's state for the rich editor: where its "/" is, what has been typed after it, the
 * chosen item. The caret stays in the text; the editor hands its keys here first (`handleKey`),
 * and while the menu is open the text carries `aria-activedescendant` for screen readers.
 */
import { useEffect, useMemo, useRef, useState, type RefObject } from "react";
import type { Editor } from "@tiptap/core";
import { matchSlashItems, type SlashItem } from "./slash-items.ts";
import { SLASH_LIST_ID, slashOptionId } from "./SlashMenu.tsx";

interface SlashState {
  from: number;
  query: string;
  active: number;
  at: { left: number; top: number };
}

export function useSlashMenu(editorRef: RefObject<Editor | null>, wrapper: RefObject<HTMLDivElement | null>) {
  const [state, setState] = useState<SlashState | null>(null);
  const stateRef = useRef(state);
  stateRef.current = state;
  const items = useMemo(() => (state ? matchSlashItems(state.query) : []), [state?.query]);
  const itemsRef = useRef(items);
  itemsRef.current = items;

  /** Follows the caret: the menu filters by the text after "/" and closes when the caret leaves it. */
  const track = () => {
    const e = editorRef.current;
    const open = stateRef.current;
    if (!e || !open) return;
    const caret = e.state.selection.from;
    const typed = caret > open.from && e.state.selection.empty ? e.state.doc.textBetween(open.from, caret, "\n") : "";
    if (!typed.startsWith("/") || /\s/.test(typed) || typed.length > 24) stateRef.current = null;
    else if (typed.slice(1) !== open.query) stateRef.current = { ...open, query: typed.slice(1), active: 0 };
    setState(stateRef.current);
  };

  const open = (from: number) => {
    const e = editorRef.current;
    const box = wrapper.current?.getBoundingClientRect();
    if (!e || !box || e.state.doc.textBetween(from, from + 1) !== "/") return;
    const c = e.view.coordsAtPos(from);
    stateRef.current = { from, query: "", active: 0, at: { left: Math.max(0, c.left - box.left), top: c.bottom - box.top + 4 } };
    setState(stateRef.current);
    // Keys typed before the menu opened are its filter already.
    track();
  };

  const close = () => {
    stateRef.current = null;
    setState(null);
  };

  const pick = (item: SlashItem) => {
    const e = editorRef.current;
    const at = stateRef.current;
    close();
    if (!e || !at) return;
    e.chain().focus().deleteRange({ from: at.from, to: Math.max(at.from, e.state.selection.from) }).run();
    item.run(e);
  };

  /** Arrows move in the list, Enter or Tab take the chosen item, Esc closes; other keys go to the text. */
  const handleKey = (event: KeyboardEvent): boolean => {
    const at = stateRef.current;
    if (!at) return false;
    const list = itemsRef.current;
    if (event.key === "Escape") {
      close();
      return true;
    }
    if ((event.key === "ArrowDown" || event.key === "ArrowUp") && list.length > 0) {
      setState({ ...at, active: (at.active + (event.key === "ArrowDown" ? 1 : list.length - 1)) % list.length });
      return true;
    }
    if ((event.key === "Enter" || event.key === "Tab") && list[at.active]) {
      pick(list[at.active]!);
      return true;
    }
    return false;
  };

  useEffect(() => {
    const dom = editorRef.current?.view.dom;
    if (!dom) return;
    if (state) {
      dom.setAttribute("aria-controls", SLASH_LIST_ID);
      if (items[state.active]) dom.setAttribute("aria-activedescendant", slashOptionId(state.active));
      else dom.removeAttribute("aria-activedescendant");
    } else {
      dom.removeAttribute("aria-controls");
      dom.removeAttribute("aria-activedescendant");
    }
  }, [editorRef, state, items]);

  return { state, items, open, track, close, pick, handleKey };
}
