/**
 * The `[[` picker: a small list of the workspace's pages under the caret, filtered (fuzzily) as
 * the person types; Enter (or a click) inserts a wikilink `[[path]]` (the target without `.md`), Esc closes.
 */
import { useEffect, useMemo, useState } from "react";

export interface PickablePage {
  path: string;
  title: string;
}

export const wikilinkFor = (path: string) => `[[${path.replace(/\.md$/, "")}]]`;

export function PagePicker(props: { pages: PickablePage[] | null; at: { left: number; top: number }; onPick(page: PickablePage): void; onClose(): void }) {
  const [q, setQ] = useState("");
  const [active, setActive] = useState(0);
  const matches = useMemo(() => {
    const needle = q.toLowerCase().replace(/\s+/g, "");
    // Fuzzy: the letters typed, in order; pages whose title or path holds them together come first.
    const inOrder = (text: string) => {
      let i = 0;
      for (const ch of text) if (ch === needle[i]) i++;
      return i === needle.length;
    };
    const scored: Array<[number, PickablePage]> = [];
    for (const p of props.pages ?? []) {
      const title = p.title.toLowerCase();
      const path = p.path.toLowerCase();
      if (title.includes(needle) || path.includes(needle)) scored.push([0, p]);
      else if (inOrder(title) || inOrder(path)) scored.push([1, p]);
    }
    return scored.sort((a, b) => a[0] - b[0]).map(([, p]) => p).slice(0, 8);
  }, [props.pages, q]);
  useEffect(() => setActive(0), [q]);
  return (
    <div className="page-picker" style={{ left: props.at.left, top: props.at.top }} role="dialog" aria-label="Link to a page">
      <input
        autoFocus
        aria-label="Find a page to link"
        role="combobox"
        aria-expanded={matches.length > 0}
        aria-controls="page-picker-list"
        aria-activedescendant={matches[active] ? `page-pick-${active}` : undefined}
        value={q}
        placeholder="Page title or path…"
        onChange={(e) => setQ(e.target.value)}
        onBlur={() => setTimeout(props.onClose, 150)}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.preventDefault();
            props.onClose();
          } else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
            e.preventDefault();
            if (matches.length) setActive((a) => (a + (e.key === "ArrowDown" ? 1 : matches.length - 1)) % matches.length);
          } else if (e.key === "Enter") {
            e.preventDefault();
            if (matches[active]) props.onPick(matches[active]!);
          }
        }}
      />
      <ul id="page-picker-list" role="listbox" aria-label="Pages">
        {props.pages === null && <li className="muted">Loading pages…</li>}
        {props.pages !== null && matches.length === 0 && <li className="muted">No page matches.</li>}
        {matches.map((p, i) => (
          <li
            key={p.path}
            id={`page-pick-${i}`}
            role="option"
            aria-selected={i === active}
            className={i === active ? "active" : undefined}
            onMouseDown={(e) => {
              e.preventDefault();
              props.onPick(p);
            }}
          >
            <span>{p.title}</span> <span className="muted">{p.path}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
