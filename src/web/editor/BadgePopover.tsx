/**
 * The control of a selected badge chip: its text and its variant, applied as they change (each
 * change rewrites only the badge: src/web/markdown/badge.ts). Esc or Enter returns to the text with
 * the chip still selected.
 */
import { useEffect, useRef, useState } from "react";
import type { Editor } from "@tiptap/core";
import { BADGE_VARIANTS, badgeVariant, cleanBadgeText, withVariant } from "../markdown/badge.ts";
import type { BadgeStorage } from "./badge.ts";

export interface BadgeAt {
  pos: number;
  text: string;
  attrs: string | null;
  at: { left: number; top: number };
}

export function BadgePopover(props: { editor: Editor; badge: BadgeAt }) {
  const { editor, badge } = props;
  const input = useRef<HTMLInputElement>(null);
  const [text, setText] = useState(badge.text);
  useEffect(() => setText(badge.text), [badge.pos, badge.text]);
  const storage = (editor.storage as unknown as { badge: BadgeStorage }).badge;
  useEffect(() => {
    storage.focusControl = () => input.current?.focus();
    return () => {
      storage.focusControl = null;
    };
  }, [storage]);

  // An attribute step keeps the chip selected, so the control stays open while it is edited.
  const set = (name: "text" | "attrs", value: string) => editor.chain().command(({ tr }) => (tr.setNodeAttribute(badge.pos, name, value), true)).run();
  const back = () => editor.chain().focus().setNodeSelection(badge.pos).run();
  const keys = (e: React.KeyboardEvent) => {
    if (e.key === "Escape" || (e.key === "Enter" && e.target === input.current)) {
      e.preventDefault();
      back();
    }
  };
  return (
    <div className="page-picker link-popover badge-popover" style={{ left: badge.at.left, top: badge.at.top }} role="group" aria-label="Badge">
      <label>
        Text{" "}
        <input
          ref={input}
          value={text}
          readOnly={!editor.isEditable}
          onChange={(e) => {
            const next = cleanBadgeText(e.target.value);
            setText(next);
            set("text", next);
          }}
          onKeyDown={keys}
        />
      </label>
      <label>
        Variant{" "}
        <select value={badgeVariant(badge.attrs)} disabled={!editor.isEditable} onChange={(e) => set("attrs", withVariant(badge.attrs, e.target.value))} onKeyDown={keys}>
          {BADGE_VARIANTS.map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
