/**
 * The slash menu's list, under the caret. The caret stays in the text: what is typed after `/`
 * filters the list, and the editor hands the arrow keys, Enter, Tab and Esc to it (RichEditor.tsx),
 * so the writer never leaves the keyboard. The text keeps `aria-activedescendant` on the chosen
 * option, so a screen reader follows the choice.
 */
import type { SlashItem } from "./slash-items.ts";

export const SLASH_LIST_ID = "slash-menu-list";
export const slashOptionId = (i: number) => `slash-option-${i}`;

export function SlashMenu(props: { items: SlashItem[]; active: number; at: { left: number; top: number }; onPick(item: SlashItem): void }) {
  return (
    <div className="page-picker slash-menu" style={{ left: props.at.left, top: props.at.top }}>
      <ul id={SLASH_LIST_ID} role="listbox" aria-label="Insert a block">
        {props.items.length === 0 && <li className="muted">No block matches.</li>}
        {props.items.map((item, i) => (
          <li
            key={item.label}
            id={slashOptionId(i)}
            role="option"
            aria-selected={i === props.active}
            className={i === props.active ? "active" : undefined}
            onMouseDown={(e) => {
              e.preventDefault();
              props.onPick(item);
            }}
          >
            {item.label}
          </li>
        ))}
      </ul>
    </div>
  );
}
