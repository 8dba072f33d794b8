/**
 * The inline editor of a Markdown link: while the caret is in a link, its address shows under it,
 * editable in place (Enter applies, Esc goes back to the text), with a way to open it and to
 * remove the link. Only web and relative addresses open; anything else is text to look at.
 * For a link to a page of the workspace (or to `#` on this page) the field suggests that page's
 * headings as `page.md#id` (`headingsFor`, a native list the browser filters as it is typed).
 */
import { useEffect, useState } from "react";
import type { Editor } from "@tiptap/core";

export interface LinkAt {
  from: number;
  to: number;
  href: string;
  at: { left: number; top: number };
}

const openable = (href: string) => /^(https?:\/\/|\/|#|\.\.?\/)/i.test(href);

export function LinkPopover(props: { editor: Editor; link: LinkAt; onClose(): void; headingsFor?(href: string): Promise<string[]> | null }) {
  const { editor, link } = props;
  const [href, setHref] = useState(link.href);
  useEffect(() => setHref(link.href), [link.href, link.from]);
  // The headings of the page the address names, asked again only when that page changes.
  const page = href.split("#", 1)[0]!;
  const [suggestions, setSuggestions] = useState<string[]>([]);
  useEffect(() => {
    const asked = props.headingsFor?.(href);
    if (!asked) return setSuggestions([]);
    let live = true;
    asked.then(
      (list) => live && setSuggestions(list),
      () => live && setSuggestions([]),
    );
    return () => {
      live = false;
    };
  }, [page]);
  const apply = () => {
    const chain = editor.chain().focus().setTextSelection({ from: link.from, to: link.to });
    if (href.trim() === "") chain.unsetLink().run();
    else chain.setLink({ href: href.trim() }).run();
    editor.commands.setTextSelection(link.to);
    props.onClose();
  };
  return (
    <form
      className="page-picker link-popover"
      style={{ left: link.at.left, top: link.at.top }}
      role="dialog"
      aria-label="Edit link"
      onSubmit={(e) => {
        e.preventDefault();
        apply();
      }}
    >
      <input
        aria-label="Link address"
        list={suggestions.length > 0 ? "link-heading-targets" : undefined}
        value={href}
        readOnly={!editor.isEditable}
        onChange={(e) => setHref(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.preventDefault();
            editor.commands.focus();
            props.onClose();
          }
        }}
      />
      {suggestions.length > 0 && (
        <datalist id="link-heading-targets">
          {suggestions.map((s) => (
            <option key={s} value={s} />
          ))}
        </datalist>
      )}
      <div className="link-popover-actions">
        {editor.isEditable && <button type="submit">Apply</button>}
        {openable(link.href) && (
          <a href={link.href} target="_blank" rel="noopener noreferrer">
            Open
          </a>
        )}
        {editor.isEditable && (
          <button
            type="button"
            onClick={() => {
              editor.chain().focus().setTextSelection({ from: link.from, to: link.to }).unsetLink().run();
              props.onClose();
            }}
          >
            Remove link
          </button>
        )}
      </div>
    </form>
  );
}
