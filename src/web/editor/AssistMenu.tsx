/**
 * The editor's Assist menu: the selected text (or the whole page when nothing is selected) is
 * rewritten by the configured writing model in one of six modes and replaces what was sent. Shown
 * only when the server says a model is configured (`ai_assist` in GET /api/auth/config).
 */
import { useEffect, useState } from "react";
import type { Editor } from "@tiptap/core";
import { messageOf } from "../api/client.ts";
import { authConfig, writingAssist } from "../api/account.ts";

const MODES: Array<[string, string]> = [
  ["improve", "Improve writing"],
  ["shorten", "Shorten"],
  ["expand", "Expand"],
  ["fix_grammar", "Fix grammar"],
  ["summarize", "Summarize"],
  ["translate", "Translate…"],
];

let configured: Promise<boolean> | null = null;
/** Asked once per page load: whether a writing model is configured. */
function aiAssistAvailable(): Promise<boolean> {
  configured ??= authConfig().then((c) => c.ai_assist === true, () => false);
  return configured;
}

export function AssistMenu({ editor }: { editor: Editor }) {
  const [available, setAvailable] = useState(false);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    void aiAssistAvailable().then((v) => live && setAvailable(v));
    return () => {
      live = false;
    };
  }, []);
  if (!available) return null;

  const run = async (mode: string) => {
    const { from, to, empty } = editor.state.selection;
    const range = empty ? { from: 0, to: editor.state.doc.content.size } : { from, to };
    const text = editor.state.doc.textBetween(range.from, range.to, "\n\n");
    if (text.trim() === "") return;
    let language: string | undefined;
    if (mode === "translate") {
      const answer = window.prompt("Translate into which language?", "English");
      if (answer === null || answer.trim() === "") return;
      language = answer.trim();
    }
    setBusy(true);
    try {
      const result = await writingAssist({ text, mode, ...(language ? { language } : {}) });
      editor.chain().focus().insertContentAt(range, result.text).run();
    } catch (error) {
      window.alert(`Assist failed: ${messageOf(error)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <select
      className="tool assist-menu"
      aria-label="Assist"
      title="Assist: rewrite the selection (or the page) with the writing model"
      value=""
      disabled={busy}
      onChange={(e) => {
        const mode = e.target.value;
        e.target.value = "";
        if (mode) void run(mode);
      }}
    >
      <option value="">{busy ? "Assist…" : "Assist"}</option>
      {MODES.map(([mode, label]) => (
        <option key={mode} value={mode}>
          {label}
        </option>
      ))}
    </select>
  );
}
