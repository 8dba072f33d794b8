/**
 * One page open for editing: frontmatter form, rich or raw editor with the `</>` toggle, autosave
 * a couple of seconds after typing stops (Ctrl/Cmd+S forces it), a save status, and the conflict
 * banner when someone else saved first. Whatever mode is active, the text typed is never lost:
 * switching modes hands the current Markdown to the other editor, and a conflict keeps both sides.
 */
import { lazy, Suspense, useCallback, useState } from "react";
import { ApiError, messageOf } from "../api/client.ts";
import type { TreeNode, Workspace } from "../api/types.ts";
import { linkClick } from "../app/router.ts";
import { RichEditor } from "../editor/RichEditor.tsx";
import { Notice, Spinner } from "../ui/controls.tsx";
import { uploadImage } from "../editor/image-upload.ts";
import type { PickablePage } from "../editor/PagePicker.tsx";
import { fetchTree } from "../api/tree.ts";
import { readPage } from "../api/pages.ts";
import { pagePathOf } from "../tree/tree-ops.ts";
import { FrontmatterForm } from "./FrontmatterForm.tsx";
import { useLivePage } from "../app/site-live.ts";
import { ConflictBanner } from "./ConflictBanner.tsx";
import { usePageDocument, type SaveStatus } from "../app/page-document.ts";

const RawEditor = lazy(() => import("../editor/RawEditor.tsx"));
const CommentsPanel = lazy(() => import("../comments/CommentsPanel.tsx"));
const HistoryPanel = lazy(() => import("../history/HistoryPanel.tsx"));

export { AUTOSAVE_MS } from "../app/page-document.ts";

const STATUS_TEXT: Record<SaveStatus, string> = {
  saved: "Saved",
  unsaved: "Unsaved changes",
  saving: "Saving…",
  error: "Not saved",
  conflict: "Conflict",
};

export default function PageScreen({
  workspace,
  path,
  onTreeChanged,
  line,
}: {
  workspace: Workspace;
  path: string;
  onTreeChanged(): void;
  /** Open the Markdown source at this body line (links from the quality report). */
  line?: number;
}) {
  const doc = usePageDocument(workspace, path);
  const { page, loadError, opened, status, saveError, retryIn, conflict, notice, setNotice, discarded, setDiscarded, editor, save, onChange, reopen, currentText } = doc;
  // Asked again when the page's metadata changes (the publish flag lives there).
  const live = useLivePage(workspace.id, path, `${page?.publish}|${page?.frontmatter_hash ?? ""}`);
  const [mode, setMode] = useState<"rich" | "raw">(line !== undefined ? "raw" : "rich");
  const [panel, setPanel] = useState<"comments" | "history" | null>(null);
  const toggle = (which: "comments" | "history") => setPanel((open) => (open === which ? null : which));
  const [uploading, setUploading] = useState<{ name: string; fraction: number } | null>(null);
  const [uploadError, setUploadError] = useState<string | null>(null);

  const uploadImageFile = useCallback(
    async (file: File): Promise<string | null> => {
      setUploadError(null);
      setUploading({ name: file.name || "image", fraction: 0 });
      try {
        const stored = await uploadImage(workspace.slug, file, (fraction) => setUploading({ name: file.name || "image", fraction }));
        return stored.url;
      } catch (e) {
        setUploadError(`${file.name || "The image"} was not uploaded: ${messageOf(e)}`);
        return null;
      } finally {
        setUploading(null);
      }
    },
    [workspace.slug],
  );
  const loadPages = useCallback(async (): Promise<PickablePage[]> => {
    const flat: PickablePage[] = [];
    const walk = (nodes: TreeNode[]) =>
      nodes.forEach((n) => {
        const p = pagePathOf(n);
        if (p && p !== path) flat.push({ path: p, title: n.title || n.name });
        walk(n.children);
      });
    walk(await fetchTree(workspace.slug));
    return flat;
  }, [workspace.slug, path]);
  // A linked page's headings for `[[page#heading]]`: its text through the page read, outlined here
  // (loaded on first use, so opening a page does not pay for it).
  const loadHeadings = useCallback(
    async (target: string) => (await import("../markdown/outline.ts")).pageOutline((await readPage(workspace.slug, target)).content),
    [workspace.slug],
  );
  const editable = workspace.rights.edit;

  const toggleMode = () => {
    const text = currentText();
    setMode((m) => (m === "rich" ? "raw" : "rich"));
    reopen(text);
  };

  if (loadError) {
    return <Notice kind="error">{loadError instanceof ApiError && loadError.status === 404 ? "This page does not exist (or you cannot read it)." : messageOf(loadError)}</Notice>;
  }
  if (!page || !opened) return <Spinner label="Loading page" />;

  return (
    <div className="page-layout">
    <article className="page-editor" aria-labelledby="page-title">
      <div className="page-head">
        <h1 id="page-title">{page.title}</h1>
        <div className="page-actions">
          <span className={`save-status status-${status}`} role="status" aria-live="polite" data-status={status}>
            {STATUS_TEXT[status]}
          </span>
          {editable && (
            <button type="button" className="btn btn-small" onClick={() => void save()} disabled={status === "saving" || status === "conflict"} title="Save now (Ctrl+S)">
              Save
            </button>
          )}
          {live?.url && (
            <a className="btn btn-small" href={live.url} target="_blank" rel="noopener">
              View on site
            </a>
          )}
          <a className="btn btn-small" href={`/w/${encodeURIComponent(workspace.slug)}/activity?page=${encodeURIComponent(path)}`} onClick={linkClick}>
            Activity
          </a>
          <button type="button" className={`btn btn-small${panel === "history" ? " active" : ""}`} aria-pressed={panel === "history"} onClick={() => toggle("history")}>
            History
          </button>
          <button type="button" className={`btn btn-small${panel === "comments" ? " active" : ""}`} aria-pressed={panel === "comments"} onClick={() => toggle("comments")}>
            Comments
          </button>
          <button
            type="button"
            className={`btn btn-small mode-toggle${mode === "raw" ? " active" : ""}`}
            aria-pressed={mode === "raw"}
            aria-label={mode === "raw" ? "Switch to rich editor" : "Switch to Markdown source"}
            title={mode === "raw" ? "Rich editor" : "Markdown source"}
            onClick={toggleMode}
          >
            {"</>"}
          </button>
        </div>
      </div>
      <div className="muted page-path">{page.path}</div>
      {page.problems?.map((problem) => (
        <Notice kind="warning" key={problem.kind}>
          This page's file has a problem: {problem.message}. The text below is kept as it is; fix the frontmatter in the Markdown source ({"</>"}).
        </Notice>
      ))}
      <FrontmatterForm
        page={page}
        live={live}
        editable={editable}
        save={async (frontmatter) => {
          await doc.saveFrontmatter(frontmatter);
          onTreeChanged();
        }}
      />
      {status === "error" && saveError && (
        <Notice kind="error">
          {retryIn !== null
            ? `${saveError} Your text is kept here, not lost: saving is tried again by itself (next in about ${retryIn} s), or now with Ctrl+S.`
            : `Saving failed: ${saveError} Your text is still here; saving is retried on the next change or with Ctrl+S.`}
        </Notice>
      )}
      {notice && <Notice kind="warning">{notice}</Notice>}
      {conflict && (
        <ConflictBanner
          conflict={conflict}
          onKeepMine={doc.keepMine}
          onTakeTheirs={doc.takeTheirs}
          onMergeByHand={() => {
            // The person's current text opens in the source editor; the server's change stays in the banner.
            setMode("raw");
            doc.mergeByHand();
          }}
          onDoneMerging={doc.doneMerging}
        />
      )}
      {discarded !== null && (
        <details className="discarded" open>
          <summary>Your version (not saved)</summary>
          <textarea readOnly aria-label="Your version of the page, not saved" value={discarded} rows={Math.min(12, discarded.split("\n").length + 1)} />
          <div className="conflict-actions">
            <button type="button" className="btn btn-small" onClick={() => void navigator.clipboard?.writeText(discarded)}>
              Copy
            </button>
            <button type="button" className="btn btn-small" onClick={() => setDiscarded(null)}>
              Dismiss
            </button>
          </div>
        </details>
      )}
      {uploading && (
        <div className="upload-status" role="status">
          Uploading {uploading.name}… <progress max={1} value={uploading.fraction} aria-label={`Upload of ${uploading.name}`} />
        </div>
      )}
      {uploadError && <Notice kind="error">{uploadError}</Notice>}
      {mode === "rich" ? (
        <RichEditor
          key={opened.generation}
          ref={editor}
          markdown={opened.text}
          editable={editable}
          onChange={onChange}
          uploadImage={editable ? uploadImageFile : undefined}
          loadPages={loadPages}
          loadHeadings={loadHeadings}
          pagePath={path}
          onUnsupported={() => {
            setNotice("This page uses Markdown the rich editor cannot show block for block, so it is open as source.");
            setMode("raw");
          }}
        />
      ) : (
        <Suspense fallback={<Spinner label="Loading the source editor" />}>
          <RawEditor
            key={opened.generation}
            ref={editor}
            markdown={opened.text}
            editable={editable}
            onChange={onChange}
            uploadImage={editable ? uploadImageFile : undefined}
            loadPages={loadPages}
            loadHeadings={loadHeadings}
            initialLine={line}
          />
        </Suspense>
      )}
    </article>
      {panel === "comments" && (
        <Suspense fallback={<Spinner label="Loading comments" />}>
          <CommentsPanel workspace={workspace} path={path} onClose={() => setPanel(null)} />
        </Suspense>
      )}
      {panel === "history" && (
        <Suspense fallback={<Spinner label="Loading history" />}>
          <HistoryPanel
            workspace={workspace}
            path={path}
            version={page.content_hash}
            unsaved={status !== "saved"}
            currentHash={doc.currentHash}
            onRestored={doc.adopt}
            onStale={() => void doc.reload().catch((e) => setNotice(messageOf(e)))}
            onClose={() => setPanel(null)}
          />
        </Suspense>
      )}
    </div>
  );
}
