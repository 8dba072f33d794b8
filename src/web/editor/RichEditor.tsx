/**
 * The rich (Tiptap) editor over a Markdown text. It loads the text through a MarkdownSession, so
 * `getMarkdown()` rewrites only the blocks the person changed. When the editor cannot hold the
 * document block for block, it says so (`onUnsupported`) and the page opens in raw mode instead.
 */
import { forwardRef, useEffect, useImperativeHandle, useMemo, useRef, useState } from "react";
import type { Editor } from "@tiptap/core";
import { imageFiles } from "./image-upload.ts";
import { PagePicker, wikilinkFor, type PickablePage } from "./PagePicker.tsx";
import { EditorContent, useEditor } from "@tiptap/react";
import StarterKit from "@tiptap/starter-kit";
import { TaskItem, TaskList } from "@tiptap/extension-list";
import { AuthImage } from "./auth-image.ts";
import { Placeholder } from "@tiptap/extensions";
import { MarkdownSession } from "../markdown/session.ts";
import type { PMNode } from "../markdown/pm.ts";
import { cspNonce } from "../api/types.ts";
import { RawBlock } from "./raw-block.tsx";
import { TableGrid } from "./table-grid.ts";
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
  /** Stores a pasted or dropped image and gives back its URL (the caller shows progress). */
  uploadImage?(file: File): Promise<string | null>;
  /** Pages for the `[[` picker. */
  loadPages?(): Promise<PickablePage[]>;
}

export const RichEditor = forwardRef<EditorHandle, Props>(function RichEditor(props, ref) {
  const session = useMemo(() => new MarkdownSession(props.markdown), [props.markdown]);
  const callbacks = useRef(props);
  callbacks.current = props;
  const editorRef = useRef<Editor | null>(null);
  const wrapper = useRef<HTMLDivElement>(null);
  const [picker, setPicker] = useState<{ left: number; top: number } | null>(null);
  const [pages, setPages] = useState<PickablePage[] | null>(null);

  const insertImages = (files: File[], at: number | null) => {
    const upload = callbacks.current.uploadImage;
    if (!upload) return;
    for (const file of files) {
      void upload(file).then((src) => {
        const e = editorRef.current;
        if (!src || !e || e.isDestroyed) return;
        const node = { type: "image", attrs: { src, alt: file.name.replace(/\.[a-z0-9]+$/i, "") } };
        if (at === null) e.chain().focus().insertContent(node).run();
        else e.chain().focus().insertContentAt(Math.min(at, e.state.doc.content.size), node).run();
      });
    }
  };

  const openPicker = (pos: number) => {
    const e = editorRef.current;
    const box = wrapper.current?.getBoundingClientRect();
    if (!e || !box || !callbacks.current.loadPages) return;
    const c = e.view.coordsAtPos(pos);
    setPicker({ left: Math.max(0, c.left - box.left), top: c.bottom - box.top + 4 });
    setPages(null);
    void callbacks.current.loadPages().then(setPages, () => setPages([]));
  };

  const pickPage = (page: PickablePage) => {
    const e = editorRef.current;
    setPicker(null);
    if (!e) return;
    const { from } = e.state.selection;
    const before = e.state.doc.textBetween(Math.max(0, from - 2), from);
    const start = before === "[[" ? from - 2 : from;
    e.chain().focus().insertContentAt({ from: start, to: from }, wikilinkFor(page.path)).run();
  };

  const editor = useEditor(
    {
      extensions: [
        StarterKit.configure({ underline: false, trailingNode: false, link: { openOnClick: false, autolink: true } }),
        TaskList,
        TaskItem.configure({ nested: true }),
        AuthImage.configure({ inline: true }),
        RawBlock,
        ...TableGrid,
        Placeholder.configure({ placeholder: "Start writing…" }),
      ],
      content: session.initial,
      editable: props.editable,
      injectNonce: cspNonce(),
      editorProps: {
        attributes: { "aria-label": "Page content", role: "textbox", "aria-multiline": "true", class: "prose" },
        handlePaste: (_view, event) => {
          const files = imageFiles(event.clipboardData?.files);
          if (files.length === 0 || !callbacks.current.uploadImage) return false;
          event.preventDefault();
          insertImages(files, null);
          return true;
        },
        handleDrop: (view, event, _slice, moved) => {
          const files = moved ? [] : imageFiles(event.dataTransfer?.files);
          if (files.length === 0 || !callbacks.current.uploadImage) return false;
          event.preventDefault();
          insertImages(files, view.posAtCoords({ left: event.clientX, top: event.clientY })?.pos ?? null);
          return true;
        },
        handleTextInput: (view, from, _to, text) => {
          // The second "[" of "[[" opens the page picker; the brackets stay typed until a page is chosen.
          if (text === "[" && from > 0 && view.state.doc.textBetween(from - 1, from) === "[") setTimeout(() => openPicker(from + 1), 0);
          return false;
        },
      },
      onCreate: ({ editor: e }) => {
        if (!session.rebase(e.getJSON() as PMNode)) callbacks.current.onUnsupported();
      },
      onUpdate: () => callbacks.current.onChange(),
    },
    [session],
  );
  editorRef.current = editor;
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
    <div className="rich-editor" ref={wrapper}>
      {props.editable && <Toolbar editor={editor} />}
      <EditorContent editor={editor} />
      {picker && (
        <PagePicker
          pages={pages}
          at={picker}
          onPick={pickPage}
          onClose={() => {
            setPicker(null);
            // Back to the text after Esc; a click elsewhere keeps its own focus.
            if (!document.activeElement || document.activeElement === document.body) editor.commands.focus();
          }}
        />
      )}
    </div>
  );
});
