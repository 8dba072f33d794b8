/**
 * Formatting buttons of the rich editor; each names its shortcut for keyboard users. A button's
 * accessible name contains the words it shows (WCAG 2.5.3), so "H2" is "Heading 2, H2": a person
 * using speech input says what they see. Inside a table, the grid's own buttons appear.
 */
import type { Editor } from "@tiptap/core";
import { useEditorState } from "@tiptap/react";
import { AssistMenu } from "./AssistMenu.tsx";
import { alignColumn, columnAlign } from "./table-grid.ts";
const isMac = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform);
const mod = isMac ? "⌘" : "Ctrl+";

export function Toolbar({ editor }: { editor: Editor }) {
  const state = useEditorState({
    editor,
    selector: ({ editor: e }) => ({
      bold: e.isActive("bold"),
      italic: e.isActive("italic"),
      code: e.isActive("code"),
      link: e.isActive("link"),
      h1: e.isActive("heading", { level: 1 }),
      h2: e.isActive("heading", { level: 2 }),
      h3: e.isActive("heading", { level: 3 }),
      bullet: e.isActive("bulletList"),
      ordered: e.isActive("orderedList"),
      task: e.isActive("taskList"),
      quote: e.isActive("blockquote"),
      codeBlock: e.isActive("codeBlock"),
      table: e.isActive("table"),
      align: e.isActive("table") ? columnAlign(e) : null,
    }),
  });
  const chain = () => editor.chain().focus();
  const button = (label: string, text: string, active: boolean | null, run: () => void, shortcut?: string) => {
    // Letters and digits shown are part of the name; a lone symbol is decoration beside it.
    const name = /[\p{L}\p{N}]/u.test(text) && !label.toLowerCase().includes(text.toLowerCase()) ? `${label}, ${text}` : label;
    return (
      <button
        type="button"
        className={`tool${active ? " active" : ""}`}
        aria-label={name}
        aria-pressed={active ?? undefined}
        title={shortcut ? `${name} — ${shortcut}` : name}
        onMouseDown={(e) => e.preventDefault()}
        onClick={run}
      >
        {text}
      </button>
    );
  };
  const grid = (label: string, text: string, run: () => void, shortcut?: string) => button(label, text, null, run, shortcut);
  return (
    <div className="toolbar" role="toolbar" aria-label="Formatting">
      {button("Bold", "B", state.bold, () => chain().toggleBold().run(), `${mod}B`)}
      {button("Italic", "I", state.italic, () => chain().toggleItalic().run(), `${mod}I`)}
      {button("Inline code", "`", state.code, () => chain().toggleCode().run(), `${mod}E`)}
      {button("Link", "Link", state.link, () => {
        const prev = String(editor.getAttributes("link").href ?? "");
        const href = window.prompt("Link address (empty to remove)", prev);
        if (href === null) return;
        if (href === "") chain().extendMarkRange("link").unsetLink().run();
        else chain().extendMarkRange("link").setLink({ href }).run();
      })}
      <span className="tool-sep" aria-hidden="true" />
      {button("Heading 1", "H1", state.h1, () => chain().toggleHeading({ level: 1 }).run(), `${mod}Alt+1`)}
      {button("Heading 2", "H2", state.h2, () => chain().toggleHeading({ level: 2 }).run(), `${mod}Alt+2`)}
      {button("Heading 3", "H3", state.h3, () => chain().toggleHeading({ level: 3 }).run(), `${mod}Alt+3`)}
      <span className="tool-sep" aria-hidden="true" />
      {button("Bulleted list", "•", state.bullet, () => chain().toggleBulletList().run(), `${mod}Shift+8`)}
      {button("Numbered list", "1.", state.ordered, () => chain().toggleOrderedList().run(), `${mod}Shift+7`)}
      {button("Task list", "☑", state.task, () => chain().toggleTaskList().run(), `${mod}Shift+9`)}
      {button("Quote", "❝", state.quote, () => chain().toggleBlockquote().run(), `${mod}Shift+B`)}
      {button("Code block", "{ }", state.codeBlock, () => {
        const language = state.codeBlock ? null : window.prompt("Language of the code (optional)", "");
        if (state.codeBlock) chain().toggleCodeBlock().run();
        else chain().toggleCodeBlock({ language: language || "" }).run();
      }, `${mod}Alt+C`)}
      {button("Table", "▦", state.table, () => {
        if (!state.table) chain().insertTable({ rows: 3, cols: 2, withHeaderRow: true }).run();
      })}
      {button("Image", "Img", false, () => {
        const src = window.prompt("Image address");
        if (src) chain().setImage({ src, alt: "" }).run();
      })}
      {button("Horizontal rule", "―", false, () => chain().setHorizontalRule().run())}
      <AssistMenu editor={editor} />
      {state.table && (
        <div className="tool-group" role="group" aria-label="Table">
          <span className="tool-sep" aria-hidden="true" />
          {grid("Add row above", "↑+", () => chain().addRowBefore().run(), `${mod}Alt+↑`)}
          {grid("Add row below", "↓+", () => chain().addRowAfter().run(), `${mod}Alt+↓`)}
          {grid("Add column left", "←+", () => chain().addColumnBefore().run(), `${mod}Alt+←`)}
          {grid("Add column right", "→+", () => chain().addColumnAfter().run(), `${mod}Alt+→`)}
          {grid("Delete row", "↕−", () => chain().deleteRow().run(), `${mod}Alt+Backspace`)}
          {grid("Delete column", "↔−", () => chain().deleteColumn().run(), `${mod}Shift+Alt+Backspace`)}
          {button("Align column left", "⇤", state.align === "left", () => alignColumn(editor, state.align === "left" ? null : "left"))}
          {button("Align column center", "↔", state.align === "center", () => alignColumn(editor, state.align === "center" ? null : "center"))}
          {button("Align column right", "⇥", state.align === "right", () => alignColumn(editor, state.align === "right" ? null : "right"))}
        </div>
      )}
    </div>
  );
}
