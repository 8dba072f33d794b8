/**
 * The raw Markdown editor (CodeMirror 6), loaded only when someone switches to it. Its text is the
 * file's body exactly; nothing is reformatted.
 */
import { forwardRef, useEffect, useImperativeHandle, useRef } from "react";
import { EditorState } from "@codemirror/state";
import { EditorView, keymap, lineNumbers, highlightActiveLine, drawSelection } from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { markdown } from "@codemirror/lang-markdown";
import { syntaxHighlighting, defaultHighlightStyle } from "@codemirror/language";
import { cspNonce } from "../api/types.ts";
import type { EditorHandle } from "./RichEditor.tsx";

interface Props {
  markdown: string;
  editable: boolean;
  onChange(): void;
}

const RawEditor = forwardRef<EditorHandle, Props>(function RawEditor(props, ref) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const onChange = useRef(props.onChange);
  onChange.current = props.onChange;
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
          keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
          EditorState.readOnly.of(!props.editable),
          EditorView.contentAttributes.of({ "aria-label": "Markdown source" }),
          ...(nonce ? [EditorView.cspNonce.of(nonce)] : []),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) onChange.current();
          }),
        ],
      }),
    });
    view.current = v;
    return () => v.destroy();
    // The editor is created once per text it opens with; later text lives in CodeMirror itself.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [props.markdown, props.editable]);
  useImperativeHandle(ref, () => ({
    getMarkdown: () => view.current?.state.doc.toString() ?? props.markdown,
    focus: () => view.current?.focus(),
  }));
  return <div className="raw-editor" ref={host} />;
});

export default RawEditor;
