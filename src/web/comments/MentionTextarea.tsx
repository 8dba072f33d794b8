/** A comment box where "@" offers the workspace's people (arrow keys, Enter or Tab to pick, Esc to dismiss). */
import { useId, useLayoutEffect, useRef, useState } from "react";
import type { Person } from "../app/people.ts";
import { insertMention, matchPeople, mentionAt, type MentionQuery } from "./mentions.ts";

export function MentionTextarea(props: {
  label: string;
  value: string;
  onChange(value: string): void;
  people: Person[];
  onSubmit(): void;
  autoFocus?: boolean;
  placeholder?: string;
}) {
  const ref = useRef<HTMLTextAreaElement>(null);
  const [query, setQuery] = useState<MentionQuery | null>(null);
  const [active, setActive] = useState(0);
  const id = useId();
  const matches = query ? matchPeople(props.people, query.text) : [];
  const open = matches.length > 0;

  const sync = (value: string, caret: number) => {
    const q = mentionAt(value, caret);
    setQuery(q);
    setActive(0);
  };
  // The caret goes after the inserted name as soon as React has written the new value, before
  // the next key press can land in the wrong place.
  const pendingCaret = useRef<number | null>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (el && pendingCaret.current !== null) {
      el.setSelectionRange(pendingCaret.current, pendingCaret.current);
      pendingCaret.current = null;
    }
  }, [props.value]);
  const pick = (p: Person) => {
    const el = ref.current!;
    const next = insertMention(props.value, el.selectionStart, query!, p);
    pendingCaret.current = next.caret;
    props.onChange(next.value);
    setQuery(null);
    el.focus();
  };

  return (
    <div className="mention-box">
      <label htmlFor={id} className="visually-hidden">
        {props.label}
      </label>
      <textarea
        id={id}
        ref={ref}
        rows={3}
        value={props.value}
        placeholder={props.placeholder}
        autoFocus={props.autoFocus}
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={`${id}-people`}
        aria-activedescendant={open ? `${id}-p${active}` : undefined}
        onChange={(e) => {
          props.onChange(e.target.value);
          sync(e.target.value, e.target.selectionStart);
        }}
        onKeyDown={(e) => {
          if (open) {
            if (e.key === "ArrowDown" || e.key === "ArrowUp") {
              e.preventDefault();
              setActive((a) => (a + (e.key === "ArrowDown" ? 1 : matches.length - 1)) % matches.length);
              return;
            }
            if (e.key === "Enter" || e.key === "Tab") {
              e.preventDefault();
              pick(matches[active]!);
              return;
            }
            if (e.key === "Escape") {
              e.preventDefault();
              e.stopPropagation();
              setQuery(null);
              return;
            }
          }
          if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) {
            e.preventDefault();
            props.onSubmit();
          }
        }}
        onBlur={() => setTimeout(() => setQuery(null), 150)}
      />
      {open && (
        <ul className="mention-list" id={`${id}-people`} role="listbox" aria-label="People">
          {matches.map((p, i) => (
            <li
              key={p.id}
              id={`${id}-p${i}`}
              role="option"
              aria-selected={i === active}
              className={i === active ? "active" : undefined}
              onMouseDown={(e) => {
                e.preventDefault();
                pick(p);
              }}
            >
              {p.name}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
