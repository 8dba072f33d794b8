/**
 * The raw Markdown editor (CodeMirror 6), loaded only when someone switches to it. Its text is the
 * file's body exactly; nothing is reformatted. `[[` opens the page picker (with `#` for a heading),
 * and Quire's components and badges complete as they are typed (raw-completions.ts).
 */
import { forwardRef, useEffect, useImperativeHandle, useRef, useState } from "react";
import { imageFiles } from "./image-upload.ts";
import { PagePicker, wikilinkFor, type PickablePage } from "./PagePicker.tsx";
import { EditorState } from "@codemirror/state";
import { EditorView, keymap, lineNumbers, highlightActiveLine, drawSelection } from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { markdown } from "@codemirror/lang-markdown";
import { syntaxHighlighting, defaultHighlightStyle } from "@codemirror/language";
import { autocompletion, completionKeymap } from "@codemirror/autocomplete";
import { cspNonce } from "../api/types.ts";
import { quireCompletions } from "./raw-completions.ts";
import type { OutlineHeading } from "../markdown/outline.ts";
import type { EditorHandle } from "./RichEditor.tsx";

interface Props {
  markdown: string;
  editable: boolean;
  onChange(): void;
  /** Stores a pasted or dropped image and gives back its URL. */
  uploadImage?(file: File): Promise<string | null>;
  /** Pages for the `[[` picker. */
  loadPages?(): Promise<PickablePage[]>;
  /** A page's headings, for `[[page#heading]]` targets in the picker. */
  loadHeadings?(path: string): Promise<OutlineHeading[]>;
  /** A 1-based line of the body to open at (a quality finding's line): selected and scrolled into view. */
  initialLine?: number;
}

const imageMarkdown = (file: File, url: string) => `![${file.name.replace(/\.[a-z0-9]+$/i, "").replace(/[[\]]/g, "")}](${url})`;

const RawEditor = forwardRef<EditorHandle, Props>(function RawEditor(props, ref) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const onChange = useRef(props.onChange);
  onChange.current = props.onChange;
  const callbacks = useRef(props);
  callbacks.current = props;
  const wrapper = useRef<HTMLDivElement>(null);
  const [picker, setPicker] = useState<{ left: number; top: number } | null>(null);
  const [pages, setPages] = useState<PickablePage[] | null>(null);

  const insertImages = (v: EditorView, files: File[], at: number) => {
    const upload = callbacks.current.uploadImage;
    if (!upload) return;
    for (const file of files) {
      void upload(file).then((url) => {
        if (!url || view.current !== v) return;
        const pos = Math.min(at, v.state.doc.length);
        const text = imageMarkdown(file, url);
        v.dispatch({ changes: { from: pos, insert: text }, selection: { anchor: pos + text.length } });
      });
    }
  };

  const openPicker = (v: EditorView, pos: number) => {
    const box = wrapper.current?.getBoundingClientRect();
    const c = v.coordsAtPos(pos);
    if (!box || !c || !callbacks.current.loadPages) return;
    setPicker({ left: Math.max(0, c.left - box.left), top: c.bottom - box.top + 4 });
    setPages(null);
    void callbacks.current.loadPages().then(setPages, () => setPages([]));
  };
  useEffect(() => {
    const nonce = cspNonce();
    const v = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: props.markdown,
        extensions: [
          lineNumbers(),
          history(),
          drawSelection(),
          highlightActiveLine(),
          markdown(),
          syntaxHighlighting(defaultHighlightStyle),
          EditorView.lineWrapping,
          autocompletion({ override: [quireCompletions], icons: false }),
          keymap.of([...completionKeymap, ...defaultKeymap, ...historyKeymap, indentWithTab]),
          EditorState.readOnly.of(!props.editable),
          EditorView.contentAttributes.of({ "aria-label": "Markdown source" }),
          ...(nonce ? [EditorView.cspNonce.of(nonce)] : []),
          EditorView.updateListener.of((u) => {
            if (!u.docChanged) return;
            onChange.current();
            // The second "[" of "[[" typed opens the page picker.
            const head = u.state.selection.main.head;
            if (u.transactions.some((t) => t.isUserEvent("input.type")) && head >= 2 && u.state.sliceDoc(head - 2, head) === "[[") {
              setTimeout(() => openPicker(u.view, head), 0);
            }
          }),
          EditorView.domEventHandlers({
            paste: (event, v) => {
              const files = imageFiles(event.clipboardData?.files);
              if (files.length === 0 || !callbacks.current.uploadImage) return false;
              event.preventDefault();
              insertImages(v, files, v.state.selection.main.head);
              return true;
            },
            drop: (event, v) => {
              const files = imageFiles(event.dataTransfer?.files);
              if (files.length === 0 || !callbacks.current.uploadImage) return false;
              event.preventDefault();
              insertImages(v, files, v.posAtCoords({ x: event.clientX, y: event.clientY }) ?? v.state.selection.main.head);
              return true;
            },
          }),
        ],
      }),
    });
    view.current = v;
    const at = props.initialLine;
    if (at !== undefined && at >= 1) {
      const line = v.state.doc.line(Math.min(at, v.state.doc.lines));
      v.dispatch({ selection: { anchor: line.from, head: line.to }, effects: EditorView.scrollIntoView(line.from, { y: "center" }) });
      v.focus();
    }
    return () => v.destroy();
    // The editor is created once per text it opens with; later text lives in CodeMirror itself.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [props.markdown, props.editable]);
  useImperativeHandle(ref, () => ({
    getMarkdown: () => view.current?.state.doc.toString() ?? props.markdown,
    focus: () => view.current?.focus(),
  }));
  const pick = (page: PickablePage, heading?: OutlineHeading) => {
    setPicker(null);
    const v = view.current;
    if (!v) return;
    const head = v.state.selection.main.head;
    const from = v.state.sliceDoc(head - 2, head) === "[[" ? head - 2 : head;
    const text = heading ? `${wikilinkFor(page.path).slice(0, -2)}#${heading.target}]]` : wikilinkFor(page.path);
    v.dispatch({ changes: { from, to: head, insert: text }, selection: { anchor: from + text.length } });
    v.focus();
  };
  return (
    <div className="raw-editor-wrap" ref={wrapper}>
      <div className="raw-editor" ref={host} />
      {picker && (
        <PagePicker
          pages={pages}
          at={picker}
          onPick={pick}
          loadHeadings={props.loadHeadings}
          ownHeadings={() => import("../markdown/outline.ts").then((m) => m.pageOutline(view.current?.state.doc.toString() ?? ""))}
          onClose={() => {
            setPicker(null);
            // Once the picker is gone (its input held the focus until then).
            setTimeout(() => {
              if (!document.activeElement || document.activeElement === document.body) view.current?.focus();
            }, 0);
          }}
        />
      )}
    </div>
  );
});

export default RawEditor;
