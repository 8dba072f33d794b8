/**
 * One page open for editing: frontmatter form, rich or raw editor with the `</>` toggle, autosave
 * a couple of seconds after typing stops (Ctrl/Cmd+S forces it), a save status, and the conflict
 * banner when someone else saved first. Whatever mode is active, the text typed is never lost:
 * switching modes hands the current Markdown to the other editor, and a conflict keeps both sides.
 */
import { lazy, Suspense, useCallback, useEffect, useRef, useState } from "react";
import { ApiError, get, messageOf, put } from "../api/client.ts";
import type { Page, TreeNode, Workspace } from "../api/types.ts";
import { addNavigationGuard, linkClick, navigate, pageUrl } from "../app/router.ts";
import { onPageChange, type PageChange } from "../live/page-events.ts";
import { RichEditor, type EditorHandle } from "../editor/RichEditor.tsx";
import { Notice, Spinner } from "../ui/controls.tsx";
import { uploadImage } from "../editor/image-upload.ts";
import type { PickablePage } from "../editor/PagePicker.tsx";
import { fetchTree } from "../api/tree.ts";
import { pageApiUrl } from "../api/pages.ts";
import { pagePathOf } from "../tree/tree-ops.ts";
import { FrontmatterForm } from "./FrontmatterForm.tsx";
import { useLivePage } from "../app/site-live.ts";
import { ConflictBanner, type ConflictState } from "./ConflictBanner.tsx";

const RawEditor = lazy(() => import("../editor/RawEditor.tsx"));
const CommentsPanel = lazy(() => import("../comments/CommentsPanel.tsx"));

export const AUTOSAVE_MS = 2000;

type Status = "saved" | "unsaved" | "saving" | "error" | "conflict";
const STATUS_TEXT: Record<Status, string> = {
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
  const url = pageApiUrl(workspace.slug, path);
  const [page, setPage] = useState<Page | null>(null);
  // Asked again when the page's metadata changes (the publish flag lives there).
  const live = useLivePage(workspace.id, path, `${page?.publish}|${page?.frontmatter_hash ?? ""}`);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [mode, setMode] = useState<"rich" | "raw">(line !== undefined ? "raw" : "rich");
  // The text the mounted editor opened with; a new value remounts the editor.
  const [opened, setOpened] = useState<{ text: string; generation: number } | null>(null);
  const [status, setStatus] = useState<Status>("saved");
  const [saveError, setSaveError] = useState<string | null>(null);
  const [conflict, setConflict] = useState<ConflictState | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  // After "take theirs" the person's own text stays on screen to copy from: nothing typed is lost.
  const [discarded, setDiscarded] = useState<string | null>(null);
  const [comments, setComments] = useState(false);
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
  const editor = useRef<EditorHandle>(null);
  const hash = useRef<string>("");
  const savedText = useRef<string>("");
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const saving = useRef<Promise<void> | null>(null);
  const editable = workspace.rights.edit;

  useEffect(() => {
    let cancelled = false;
    get<Page>(url).then(
      (p) => {
        if (cancelled) return;
        setPage(p);
        hash.current = p.content_hash;
        savedText.current = p.content;
        setOpened({ text: p.content, generation: 0 });
        document.title = `${p.title} · Quire`;
      },
      (e) => !cancelled && setLoadError(e),
    );
    return () => {
      cancelled = true;
    };
  }, [url]);

  const currentText = useCallback(() => editor.current?.getMarkdown() ?? opened?.text ?? "", [opened]);

  const save = useCallback(async (): Promise<void> => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
    if (saving.current) await saving.current;
    const text = currentText();
    if (text === savedText.current) {
      setStatus((s) => (s === "conflict" ? s : "saved"));
      return;
    }
    setStatus("saving");
    const run = (async () => {
      try {
        const p = await put<Page>(url, { body: text, lastKnownHash: hash.current });
        hash.current = p.content_hash;
        savedText.current = text;
        setPage(p);
        setSaveError(null);
        setStatus(currentText() === text ? "saved" : "unsaved");
      } catch (e) {
        if (e instanceof ApiError && e.status === 409) {
          const server = await get<Page>(url).catch(() => null);
          setConflict({
            mine: text,
            base: savedText.current,
            theirs: server?.content ?? "",
            theirsHash: server?.content_hash ?? String(e.body.current_hash ?? ""),
            modifiedBy: String(e.body.modified_by ?? "someone"),
            modifiedAt: String(e.body.modified_at ?? ""),
          });
          setStatus("conflict");
        } else {
          setSaveError(messageOf(e));
          setStatus("error");
        }
      }
    })();
    saving.current = run;
    await run;
    saving.current = null;
  }, [currentText, url]);

  const check = useRef<ReturnType<typeof setTimeout> | null>(null);
  const onChange = useCallback(() => {
    // Editors may emit changes that leave the Markdown as it was (a node view settling on load):
    // the status says "Unsaved" only when the text really differs from what the server has.
    if (check.current) clearTimeout(check.current);
    check.current = setTimeout(() => {
      const dirty = currentText() !== savedText.current;
      setStatus((s) => (s === "conflict" || s === "saving" ? s : dirty ? "unsaved" : s === "error" ? s : "saved"));
    }, 120);
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      if (!conflictRef.current) void save();
    }, AUTOSAVE_MS);
  }, [save, currentText]);
  const conflictRef = useRef(conflict);
  conflictRef.current = conflict;

  // Ctrl/Cmd+S saves now; leaving with unsaved text asks first.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.metaKey || e.ctrlKey) && e.key.toLowerCase() === "s") {
        e.preventDefault();
        if (!conflictRef.current) void save();
      }
    };
    const dirty = () => currentText() !== savedText.current;
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      if (dirty()) e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    window.addEventListener("beforeunload", onBeforeUnload);
    const removeGuard = addNavigationGuard(() => !dirty() || window.confirm("This page has unsaved changes. Leave anyway?"));
    return () => {
      window.removeEventListener("keydown", onKey);
      window.removeEventListener("beforeunload", onBeforeUnload);
      removeGuard();
      if (timer.current) clearTimeout(timer.current);
    };
  }, [save, currentText]);

  const reopen = (text: string) => setOpened((o) => ({ text, generation: (o?.generation ?? 0) + 1 }));

  // The page changed on the server (a rename from the tree here, or someone else's save over the
  // live stream): take the new version when nothing local is unsaved, otherwise keep every typed
  // character and say so — the next save then shows the conflict banner with both sides.
  const reopenRef = useRef(reopen);
  reopenRef.current = reopen;
  useEffect(() => {
    // Handled a moment later, and not at all once this page has closed (a move navigates away),
    // so a burst of events (retitle then move) never reads a path that has just gone.
    let closed = false;
    const timers = new Set<ReturnType<typeof setTimeout>>();
    const off = onPageChange((change) => {
      const t = setTimeout(() => {
        timers.delete(t);
        if (!closed) void handle(change);
      }, 250);
      timers.add(t);
    });
    const handle = async (change: PageChange) => {
        const mine = change.slug === workspace.slug || change.workspace_id === workspace.id;
        if (!mine) return;
        const who = change.actor?.name || "Someone else";
        if (change.type === "page-moved" && change.old_path === path) {
          if (currentText() === savedText.current) navigate(pageUrl(workspace.slug, change.path), { replace: true });
          else setNotice(`${who} moved this page to ${change.path}. Your text is kept here: copy it before leaving.`);
          return;
        }
        if (change.type === "page-deleted" && change.path === path) {
          setNotice(`${who} deleted this page. Your text is kept here: copy it if you need it.`);
          return;
        }
        if (change.path !== path || change.type !== "page-updated") return;
        if (saving.current) await saving.current;
        const p = await get<Page>(url).catch(() => null);
        if (closed || !p || p.content_hash === hash.current) return;
        const dirty = currentText() !== savedText.current;
        if (p.content === savedText.current) {
          // Only the frontmatter changed: adopt it silently, the body on screen is still current.
          hash.current = p.content_hash;
          setPage(p);
          return;
        }
        if (dirty || conflictRef.current) {
          setNotice(`${who} changed this page while you were editing. Your text is kept; saving will show both versions.`);
          return;
        }
        hash.current = p.content_hash;
        savedText.current = p.content;
        setPage(p);
        reopenRef.current(p.content);
        setNotice(`${who} updated this page; showing the new version.`);
    };
    return () => {
      closed = true;
      off();
      for (const t of timers) clearTimeout(t);
    };
  }, [url, path, workspace.slug, workspace.id, currentText]);

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
            History
          </a>
          <button type="button" className={`btn btn-small${comments ? " active" : ""}`} aria-pressed={comments} onClick={() => setComments(!comments)}>
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
          const p = await put<Page>(url, { frontmatter, lastKnownHash: hash.current });
          hash.current = p.content_hash;
          setPage(p);
          onTreeChanged();
        }}
      />
      {status === "error" && saveError && <Notice kind="error">Saving failed: {saveError} Your text is still here; saving is retried on the next change or with Ctrl+S.</Notice>}
      {notice && <Notice kind="warning">{notice}</Notice>}
      {conflict && (
        <ConflictBanner
          conflict={conflict}
          onKeepMine={async () => {
            hash.current = conflict.theirsHash;
            setConflict(null);
            setStatus("unsaved");
            await save();
          }}
          onTakeTheirs={() => {
            // The editor stays editable under the banner: what is on screen now is the person's
            // version, including anything typed after the failed save.
            setDiscarded(currentText());
            hash.current = conflict.theirsHash;
            savedText.current = conflict.theirs;
            setConflict(null);
            setStatus("saved");
            reopen(conflict.theirs);
          }}
          onMergeByHand={() => {
            // Open the person's current text (typed after the failed save too) in the source editor;
            // the server's change stays visible in the banner.
            const mine = currentText();
            hash.current = conflict.theirsHash;
            setMode("raw");
            reopen(mine);
            setConflict({ ...conflict, merging: true });
            setStatus("unsaved");
          }}
          onDoneMerging={async () => {
            setConflict(null);
            await save();
          }}
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
            initialLine={line}
          />
        </Suspense>
      )}
    </article>
      {comments && (
        <Suspense fallback={<Spinner label="Loading comments" />}>
          <CommentsPanel workspace={workspace} path={path} onClose={() => setComments(false)} />
        </Suspense>
      )}
    </div>
  );
}
