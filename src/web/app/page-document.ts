/**
 * One page's document as the editor works on it: loading it, the text last saved and its hash,
 * autosave a couple of seconds after typing stops (Ctrl/Cmd+S forces it), the save status, the
 * conflict when someone else saved first and its three resolutions, and the page's changes on the
 * server (a rename here, someone else's save over the live stream). Whatever happens, the text
 * typed is never lost: a conflict keeps both sides, and a save the server's storage refused (507
 * disk full, 503 read-only) keeps the text on screen and is retried on its own with backoff.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { ApiError, messageOf } from "../api/client.ts";
import { pageApiUrl, pageIfRead, pageReadUsed, readPage, savePage, takePage } from "../api/pages.ts";
import type { Page, Workspace } from "../api/types.ts";
import { addNavigationGuard, navigate, pageUrl } from "./router.ts";
import { onPageChange, type PageChange } from "../live/page-events.ts";
import type { EditorHandle } from "../editor/RichEditor.tsx";
import type { ConflictState } from "../screens/ConflictBanner.tsx";
import type { FrontmatterPatch } from "../screens/FrontmatterForm.tsx";
import { storageChanged } from "./storage-health.ts";

export const AUTOSAVE_MS = 2000;

export type SaveStatus = "saved" | "unsaved" | "saving" | "error" | "conflict";

/** A refused save is tried again after this long, doubling up to STORAGE_RETRY_MAX_MS. */
const STORAGE_RETRY_MS = 5000;
const STORAGE_RETRY_MAX_MS = 60_000;

/**
 * The server refused for a reason that passes without the writer doing anything: its disk is full
 * (507) or its storage read-only or the service briefly unavailable (503). Nothing was saved, and
 * trying again later is the right answer.
 */
function isTransientRefusal(e: unknown): e is ApiError {
  return e instanceof ApiError && (e.status === 507 || e.status === 503);
}

export function usePageDocument(workspace: Pick<Workspace, "id" | "slug">, path: string) {
  const url = pageApiUrl(workspace.slug, path);
  // The page's early read (boot-reads.ts) when it has answered already: the first render shows the
  // page, without a render of the spinner and another once the effect below has taken the answer.
  // Only looked at here (React may render this and throw the render away); used once mounted.
  const [answered] = useState(() => pageIfRead(workspace.slug, path));
  const [page, setPage] = useState<Page | null>(answered);
  const [loadError, setLoadError] = useState<unknown>(null);
  // The text the mounted editor opened with; a new value remounts the editor.
  const [opened, setOpened] = useState<{ text: string; generation: number } | null>(answered && { text: answered.content, generation: 0 });
  const [status, setStatus] = useState<SaveStatus>("saved");
  const [saveError, setSaveError] = useState<string | null>(null);
  // Set while a refused save waits for its automatic retry: the seconds until it.
  const [retryIn, setRetryIn] = useState<number | null>(null);
  const [conflict, setConflict] = useState<ConflictState | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  // After "take theirs" the person's own text stays on screen to copy from: nothing typed is lost.
  const [discarded, setDiscarded] = useState<string | null>(null);
  const editor = useRef<EditorHandle>(null);
  const hash = useRef<string>(answered?.content_hash ?? "");
  const savedText = useRef<string>(answered?.content ?? "");
  const firstRead = useRef(answered);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const saving = useRef<Promise<void> | null>(null);
  const retry = useRef<{ timer: ReturnType<typeof setTimeout> | null; delay: number }>({ timer: null, delay: STORAGE_RETRY_MS });
  const saveRef = useRef<() => Promise<void>>(async () => {});
  useEffect(() => {
    const got = firstRead.current;
    firstRead.current = null;
    if (got) {
      pageReadUsed(workspace.slug, path);
      document.title = `${got.title} · Quire`;
      return;
    }
    let cancelled = false;
    takePage(workspace.slug, path).then(
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

  // An editor still holding the document it opened has the text it opened with: a long page's
  // blocks still being appended are not read (and drawn) for a dirty check, on leaving the page too.
  const currentText = useCallback(() => {
    const e = editor.current;
    if (e && opened && e.unchanged?.()) return opened.text;
    return e?.getMarkdown() ?? opened?.text ?? "";
  }, [opened]);

  const save = useCallback(async (): Promise<void> => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
    if (retry.current.timer) clearTimeout(retry.current.timer);
    retry.current.timer = null;
    if (saving.current) await saving.current;
    const text = currentText();
    if (text === savedText.current) {
      setStatus((s) => (s === "conflict" ? s : "saved"));
      return;
    }
    setStatus("saving");
    const run = (async () => {
      try {
        const p = await savePage(workspace.slug, path, { body: text, lastKnownHash: hash.current });
        hash.current = p.content_hash;
        savedText.current = text;
        setPage(p);
        setSaveError(null);
        setRetryIn(null);
        if (retry.current.delay !== STORAGE_RETRY_MS) storageChanged();
        retry.current.delay = STORAGE_RETRY_MS;
        setStatus(currentText() === text ? "saved" : "unsaved");
      } catch (e) {
        if (e instanceof ApiError && e.status === 409) {
          const server = await readPage(workspace.slug, path).catch(() => null);
          setConflict({
            mine: text,
            base: savedText.current,
            theirs: server?.content ?? "",
            theirsHash: server?.content_hash ?? String(e.body.current_hash ?? ""),
            modifiedBy: String(e.body.modified_by ?? "someone"),
            modifiedAt: String(e.body.modified_at ?? ""),
          });
          setStatus("conflict");
        } else if (isTransientRefusal(e)) {
          // The text stays on screen and unsaved; the save is tried again on its own (sooner on
          // the next change or Ctrl+S), so the writer loses nothing and need not notice the moment
          // space comes back.
          setSaveError(messageOf(e));
          setStatus("error");
          storageChanged();
          const delay = retry.current.delay;
          retry.current.delay = Math.min(delay * 2, STORAGE_RETRY_MAX_MS);
          setRetryIn(Math.round(delay / 1000));
          retry.current.timer = setTimeout(() => {
            retry.current.timer = null;
            if (!conflictRef.current) void saveRef.current();
          }, delay);
        } else {
          setSaveError(messageOf(e));
          setRetryIn(null);
          setStatus("error");
        }
      }
    })();
    saving.current = run;
    await run;
    saving.current = null;
  }, [currentText, url]);
  saveRef.current = save;

  const check = useRef<ReturnType<typeof setTimeout> | null>(null);
  const checks = useRef(0);
  const onChange = useCallback(() => {
    // Editors may emit changes that leave the Markdown as it was (a node view settling on load):
    // the status says "Unsaved" only when the text really differs from what the server has.
    if (check.current) clearTimeout(check.current);
    check.current = setTimeout(() => {
      const checkNow = () => {
        const dirty = currentText() !== savedText.current;
        setStatus((s) => (s === "conflict" || s === "saving" ? s : dirty ? "unsaved" : s === "error" ? s : "saved"));
      };
      // On a long page still loading, reading the text would append every pending block at once,
      // a long pause just after the first key: the check waits for the last block instead.
      const e = editor.current;
      const latest = ++checks.current;
      if (e?.whenLoaded) e.whenLoaded(() => latest === checks.current && checkNow());
      else checkNow();
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
      if (retry.current.timer) clearTimeout(retry.current.timer);
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
        const p = await readPage(workspace.slug, path).catch(() => null);
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

  /** Saves the frontmatter form's fields against the current hash. */
  const saveFrontmatter = async (frontmatter: FrontmatterPatch) => {
    const p = await savePage(workspace.slug, path, { frontmatter, lastKnownHash: hash.current });
    hash.current = p.content_hash;
    setPage(p);
  };

  const keepMine = async () => {
    if (!conflict) return;
    hash.current = conflict.theirsHash;
    setConflict(null);
    setStatus("unsaved");
    await save();
  };

  const takeTheirs = () => {
    if (!conflict) return;
    // The editor stays editable under the banner: what is on screen now is the person's
    // version, including anything typed after the failed save.
    setDiscarded(currentText());
    hash.current = conflict.theirsHash;
    savedText.current = conflict.theirs;
    setConflict(null);
    setStatus("saved");
    reopen(conflict.theirs);
  };

  /** Opens the person's current text (typed after the failed save too); the caller shows it in the source editor. */
  const mergeByHand = () => {
    if (!conflict) return;
    const mine = currentText();
    hash.current = conflict.theirsHash;
    reopen(mine);
    setConflict({ ...conflict, merging: true });
    setStatus("unsaved");
  };

  const doneMerging = async () => {
    setConflict(null);
    await save();
  };

  /** Takes a page the server answered with (a restore) as the saved text, the editor reopened on it. */
  const adopt = (p: Page) => {
    hash.current = p.content_hash;
    savedText.current = p.content;
    setPage(p);
    setConflict(null);
    setStatus("saved");
    reopen(p.content);
  };

  /** Reads the page again (someone saved first); unsaved text on screen is kept and the notice says so. */
  const reload = async () => {
    const p = await readPage(workspace.slug, path);
    if (currentText() !== savedText.current) {
      setNotice("This page changed on the server. Your unsaved text is kept; saving will show both versions.");
      return;
    }
    adopt(p);
  };

  return {
    page,
    adopt,
    reload,
    currentHash: () => hash.current,
    loadError,
    opened,
    status,
    saveError,
    retryIn,
    conflict,
    notice,
    setNotice,
    discarded,
    setDiscarded,
    editor,
    save,
    onChange,
    reopen,
    currentText,
    saveFrontmatter,
    keepMine,
    takeTheirs,
    mergeByHand,
    doneMerging,
  };
}
