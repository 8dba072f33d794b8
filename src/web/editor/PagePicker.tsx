/**
 * The `[[` picker: a small list of the workspace's pages under the caret, filtered (fuzzily) as
 * the person types; Enter (or a click) inserts a wikilink `[[path]]` (the target without `.md`), Esc closes.
 * A `#` after the page's name lists that page's headings (the first page matching what comes
 * before it), filtered by what follows; picking one writes `[[path#Heading]]`. A `#` first lists
 * this page's own headings, for `[[#Heading]]`.
 */
import { useEffect, useMemo, useState } from "react";
import type { OutlineHeading } from "../markdown/outline.ts";

export interface PickablePage {
  path: string;
  title: string;
}

export const wikilinkFor = (path: string) => `[[${path.replace(/\.md$/, "")}]]`;

/** The page being edited, in the picker's heading list (its path is empty: `[[#Heading]]`). */
const THIS_PAGE: PickablePage = { path: "", title: "this page" };

/** Fuzzy: the letters typed, in order; items whose texts hold them together come first. */
function fuzzy<T>(items: readonly T[], query: string, texts: (item: T) => string[]): T[] {
  const needle = query.toLowerCase().replace(/\s+/g, "");
  const inOrder = (text: string) => {
    let i = 0;
    for (const ch of text) if (ch === needle[i]) i++;
    return i === needle.length;
  };
  const scored: Array<[number, T]> = [];
  for (const item of items) {
    const all = texts(item).map((t) => t.toLowerCase());
    if (all.some((t) => t.replace(/\s+/g, "").includes(needle) || t.includes(needle))) scored.push([0, item]);
    else if (all.some(inOrder)) scored.push([1, item]);
  }
  return scored.sort((a, b) => a[0] - b[0]).map(([, item]) => item).slice(0, 8);
}

export function PagePicker(props: {
  pages: PickablePage[] | null;
  at: { left: number; top: number };
  onPick(page: PickablePage, heading?: OutlineHeading): void;
  onClose(): void;
  /** The headings of a page, for `#heading` targets. */
  loadHeadings?(path: string): Promise<OutlineHeading[]>;
  /** This page's own headings, as the document is now. */
  ownHeadings?(): Promise<OutlineHeading[]>;
}) {
  const [q, setQ] = useState("");
  const [active, setActive] = useState(0);
  const hash = props.loadHeadings ? q.indexOf("#") : -1;
  const pageQuery = hash >= 0 ? q.slice(0, hash) : q;
  const pageMatches = useMemo(() => fuzzy(props.pages ?? [], pageQuery, (p) => [p.title, p.path]), [props.pages, pageQuery]);
  // After `#`: the headings of the first page matching what comes before it.
  const own = hash >= 0 && pageQuery.trim() === "" && props.ownHeadings !== undefined;
  const headingPage = own ? THIS_PAGE : hash >= 0 ? (pageMatches[0] ?? null) : null;
  const [headings, setHeadings] = useState<{ path: string; list: OutlineHeading[] | null } | null>(null);
  useEffect(() => {
    if (!headingPage || !props.loadHeadings) return;
    let live = true;
    setHeadings({ path: headingPage.path, list: null });
    (headingPage === THIS_PAGE ? props.ownHeadings!() : props.loadHeadings(headingPage.path)).then(
      (list) => live && setHeadings({ path: headingPage.path, list }),
      () => live && setHeadings({ path: headingPage.path, list: [] }),
    );
    return () => {
      live = false;
    };
  }, [headingPage?.path]);
  const headingList = headingPage && headings?.path === headingPage.path ? headings.list : null;
  const headingMatches = useMemo(() => (headingList ? fuzzy(headingList, q.slice(hash + 1), (h) => [h.text, h.id]) : []), [headingList, q, hash]);
  const matches: Array<{ page: PickablePage; heading?: OutlineHeading }> = headingPage ? headingMatches.map((heading) => ({ page: headingPage, heading })) : pageMatches.map((page) => ({ page }));
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
        placeholder={props.loadHeadings ? "Page title or path, # for a heading…" : "Page title or path…"}
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
            if (matches[active]) props.onPick(matches[active]!.page, matches[active]!.heading);
          }
        }}
      />
      <ul id="page-picker-list" role="listbox" aria-label={headingPage ? `Headings of ${headingPage.title}` : "Pages"}>
        {props.pages === null && <li className="muted">Loading pages…</li>}
        {props.pages !== null && !headingPage && matches.length === 0 && <li className="muted">No page matches.</li>}
        {hash >= 0 && props.pages !== null && !headingPage && <li className="muted">Name a page before #.</li>}
        {headingPage && headingList === null && <li className="muted">Loading headings…</li>}
        {headingPage && headingList !== null && matches.length === 0 && <li className="muted">No heading matches.</li>}
        {matches.map((m, i) => (
          <li
            key={m.heading ? `${m.page.path}#${m.heading.id}` : m.page.path}
            id={`page-pick-${i}`}
            role="option"
            aria-selected={i === active}
            className={i === active ? "active" : undefined}
            onMouseDown={(e) => {
              e.preventDefault();
              props.onPick(m.page, m.heading);
            }}
          >
            {m.heading ? (
              <>
                <span className={`picker-heading picker-h${m.heading.depth}`}>{m.heading.text || m.heading.id}</span> <span className="muted">#{m.heading.id}</span>
              </>
            ) : (
              <>
                <span>{m.page.title}</span> <span className="muted">{m.page.path}</span>
              </>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
