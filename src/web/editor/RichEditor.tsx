/**
 * The rich (Tiptap) editor over a Markdown text. It loads the text through a MarkdownSession, so
 * `getMarkdown()` rewrites only the blocks the person changed. When the editor cannot hold the
 * document block for block, it says so (`onUnsupported`) and the page opens in raw mode instead.
 */
import { forwardRef, useEffect, useImperativeHandle, useMemo, useRef } from "react";
import { EditorContent, useEditor } from "@tiptap/react";
import StarterKit from "@tiptap/starter-kit";
import { TaskItem, TaskList } from "@tiptap/extension-list";
import Image from "@tiptap/extension-image";
import { Placeholder } from "@tiptap/extensions";
import { MarkdownSession } from "../markdown/session.ts";
import type { PMNode } from "../markdown/pm.ts";
import { cspNonce } from "../api/types.ts";
import { RawBlock } from "./raw-block.tsx";
import { Toolbar } from "./Toolbar.tsx";

export interface EditorHandle {
  getMarkdown(): string;
  focus(): void;
}

interface Props {
  markdown: string;
  editable: boolean;
  onChange(): void;
  onUnsupported(): void;
}

export const RichEditor = forwardRef<EditorHandle, Props>(function RichEditor(props, ref) {
  const session = useMemo(() => new MarkdownSession(props.markdown), [props.markdown]);
  const callbacks = useRef(props);
  callbacks.current = props;
  const editor = useEditor(
    {
      extensions: [
        StarterKit.configure({ underline: false, trailingNode: false, link: { openOnClick: false, autolink: true } }),
        TaskList,
        TaskItem.configure({ nested: true }),
        Image.configure({ inline: true }),
        RawBlock,
        Placeholder.configure({ placeholder: "Start writing…" }),
      ],
      content: session.initial,
      editable: props.editable,
      injectNonce: cspNonce(),
      editorProps: { attributes: { "aria-label": "Page content", role: "textbox", "aria-multiline": "true", class: "prose" } },
      onCreate: ({ editor: e }) => {
        if (!session.rebase(e.getJSON() as PMNode)) callbacks.current.onUnsupported();
      },
      onUpdate: () => callbacks.current.onChange(),
    },
    [session],
  );
  useEffect(() => {
    editor?.setEditable(props.editable);
  }, [editor, props.editable]);
  useImperativeHandle(
    ref,
    () => ({
      getMarkdown: () => (editor ? session.save(editor.getJSON() as PMNode) : props.markdown),
      focus: () => editor?.commands.focus(),
    }),
    [editor, session, props.markdown],
  );
  if (!editor) return null;
  return (
    <div className="rich-editor">
      {props.editable && <Toolbar editor={editor} />}
      <EditorContent editor={editor} />
    </div>
  );
});
