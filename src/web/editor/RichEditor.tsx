/**
 * The rich (Tiptap) editor over a Markdown text. It loads the text through a MarkdownSession, so
 * `getMarkdown()` rewrites only the blocks the person changed. When the editor cannot hold the
 * document block for block, it says so (`onUnsupported`) and the page opens in raw mode instead.
 */
import { forwardRef, useEffect, useImperativeHandle, useLayoutEffect, useMemo, useRef, useState } from "react";
import { createDocument, getMarkRange, type Editor } from "@tiptap/core";
import { EditorState } from "@tiptap/pm/state";
import type { Node as DocNode } from "@tiptap/pm/model";
import { imageFiles } from "./image-upload.ts";
import { cleanPastedHtml, looksLikeMarkdown, MAX_PASTE_HTML } from "./paste-clean.ts";
import { splitBlocks } from "../markdown/split.ts";
import { blockToNode } from "../markdown/to-doc.ts";
import { PagePicker, wikilinkFor, type PickablePage } from "./PagePicker.tsx";
import { EditorContent, useEditor } from "@tiptap/react";
import StarterKit from "@tiptap/starter-kit";
import Code from "@tiptap/extension-code";
import { EditingLink } from "./link-view.ts";
import { TaskItem, TaskList } from "@tiptap/extension-list";
import { AuthImage } from "./auth-image.ts";
import { Focus, Placeholder } from "@tiptap/extensions";
import { MarkdownSession } from "../markdown/session.ts";
import type { PMNode } from "../markdown/pm.ts";
import type { OutlineHeading } from "../markdown/outline.ts";
import { cspNonce } from "../api/types.ts";
import { RawBlock } from "./raw-block.tsx";
import { TableGrid, type TableGridStorage } from "./table-grid.ts";
import { TableMenu } from "./TableMenu.tsx";
import { TableHandles } from "./TableHandles.tsx";
import { PageDirectory, Wikilink } from "./wikilink.ts";
import { Callout } from "./callout.tsx";
import { Containers } from "./containers.tsx";
import { Embed } from "./embed.tsx";
import { SourceBlocks } from "./source-blocks.tsx";
import { SlashMenu } from "./SlashMenu.tsx";
import { useSlashMenu } from "./use-slash-menu.ts";
import { LinkPopover, type LinkAt } from "./LinkPopover.tsx";
import { Badge } from "./badge.ts";
import { BadgePopover, type BadgeAt } from "./BadgePopover.tsx";
import { ImagePopover, type ImageAt } from "./ImagePopover.tsx";
import { Toolbar } from "./Toolbar.tsx";
import { appendGrouped, BlockGroup, blockDepth, GroupCommands, GroupedDocument, GroupEdgeKeys, GROUPED_FROM, groupJson, pageBlocks, rebalance, sameBlocks } from "./block-groups.ts";

/** Runs `task` when the browser has nothing else to do (soon, where it cannot say). */
function whenIdle(task: () => void): void {
  if (typeof requestIdleCallback === "function") requestIdleCallback(task, { timeout: 2000 });
  else setTimeout(task, 200);
}

/**
 * A long page opens with its first screenful of blocks; the rest are appended in idle time, a
 * chunk at a time, so the page answers the keyboard after the first chunk (docs/decisions/editor-blocks.md).
 * The first screenful is counted from the window's height: no block (a one-line paragraph, a rule)
 * is drawn shorter than MIN_BLOCK_PX with its margins, so that many blocks fill the window.
 */
const MIN_BLOCK_PX = 24;
const FIRST_BLOCKS_MIN = 16;
const FIRST_BLOCKS_MAX = 60;
const firstBlocks = (): number =>
  Math.max(FIRST_BLOCKS_MIN, Math.min(FIRST_BLOCKS_MAX, Math.ceil((typeof window === "undefined" ? 0 : window.innerHeight) / MIN_BLOCK_PX)));
const CHUNK_BLOCKS = 40;
const SLICE_MS = 6;
const START_AFTER_MS = 150;

/** Runs `task` in idle time with the time left (or a short slice where the browser cannot say); returns its canceller. */
function inIdleTime(task: (timeLeft: () => number) => void): () => void {
  if (typeof requestIdleCallback === "function") {
    const id = requestIdleCallback((deadline) => task(() => deadline.timeRemaining()), { timeout: 300 });
    return () => cancelIdleCallback(id);
  }
  const id = setTimeout(() => task(() => 0), 16);
  return () => clearTimeout(id);
}

/** The page's blocks being appended: the next to load, each top-level node as loaded (the save baseline). */
interface Loading {
  next: number;
  loaded: DocNode[];
  /** Blocks appended after the editor was destroyed (a save while leaving), kept out of its view. */
  detached: DocNode[];
  cancel: (() => void) | null;
  done: boolean;
  /** Waiting for the last block (`whenLoaded`). */
  waiting: (() => void)[];
}

export interface EditorHandle {
  getMarkdown(): string;
  /**
   * True while the document is the one opened (nothing typed, or all of it undone): its text is
   * then the text the editor opened with, known without reading a long page's pending blocks.
   */
  unchanged?(): boolean;
  /** Runs `task` once every block of a long page is in (at once when they are). */
  whenLoaded?(task: () => void): void;
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
  /** A page's headings, for `[[page#heading]]` targets in the picker and `page.md#id` in the link field. */
  loadHeadings?(path: string): Promise<OutlineHeading[]>;
  /** The page's own path, to resolve its relative links. */
  pagePath?: string;
}

/**
 * The editor, built in a render of its own right after this component's first commit. Building it
 * (the page's text opened, Tiptap's schema and view) is the costliest render of a page, and in the
 * render that mounts a screen — a concurrent render, which React may throw away and start again
 * when an update arrives meanwhile — it was at times built twice, the first one discarded (seen on
 * the long page's cold navigation). A state set in a layout effect renders synchronously, before
 * the browser paints, and is never restarted: the editor is built once, and nothing empty is shown.
 */
export const RichEditor = forwardRef<EditorHandle, Props>(function RichEditor(props, ref) {
  const [committed, setCommitted] = useState(false);
  useLayoutEffect(() => setCommitted(true), []);
  return committed ? <RichEditorView {...props} ref={ref} /> : null;
});

const RichEditorView = forwardRef<EditorHandle, Props>(function RichEditorView(props, ref) {
  const session = useMemo(() => new MarkdownSession(props.markdown), [props.markdown]);
  const callbacks = useRef(props);
  callbacks.current = props;
  const editorRef = useRef<Editor | null>(null);
  const wrapper = useRef<HTMLDivElement>(null);
  const [picker, setPicker] = useState<{ left: number; top: number } | null>(null);
  const [link, setLink] = useState<LinkAt | null>(null);
  const [badge, setBadge] = useState<BadgeAt | null>(null);
  const [image, setImage] = useState<ImageAt | null>(null);
  const [tableMenu, setTableMenu] = useState<{ left: number; top: number } | null>(null);
  // The workspace's pages for the wikilink chips, loaded once the document holds a wikilink.
  const directory = useMemo(() => new PageDirectory(), []);
  const directoryLoading = useRef(false);
  const loadDirectory = (doc: { descendants(f: (n: { type: { name: string } }) => boolean): void }) => {
    if (directory.loaded || directoryLoading.current || !callbacks.current.loadPages) return;
    let found = false;
    doc.descendants((n) => {
      if (n.type.name === "wikilink") found = true;
      return !found;
    });
    if (!found) return;
    directoryLoading.current = true;
    void callbacks.current.loadPages().then(
      (list) => directory.set(list),
      () => (directoryLoading.current = false),
    );
  };
  const [pages, setPages] = useState<PickablePage[] | null>(null);
  const slash = useSlashMenu(editorRef, wrapper);

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
    void callbacks.current.loadPages().then(
      (list) => {
        setPages(list);
        directory.set(list);
      },
      () => setPages([]),
    );
  };

  const pickPage = (page: PickablePage, heading?: OutlineHeading) => {
    const e = editorRef.current;
    setPicker(null);
    if (!e) return;
    const { from } = e.state.selection;
    const before = e.state.doc.textBetween(Math.max(0, from - 2), from);
    const start = before === "[[" ? from - 2 : from;
    const target = wikilinkFor(page.path).slice(2, -2) + (heading ? `#${heading.target}` : "");
    e.chain().focus().insertContentAt({ from: start, to: from }, { type: "wikilink", attrs: { target, label: null } }).run();
  };

  /** The link under a collapsed caret, for its inline editor; null elsewhere. */
  const trackLink = () => {
    const e = editorRef.current;
    const { selection, schema } = e?.state ?? {};
    if (!e || !selection || !schema || !selection.empty || !schema.marks.link) return setLink(null);
    const range = getMarkRange(selection.$from, schema.marks.link);
    // Measured only in a link: reading the layout on every caret move costs the typing a frame.
    const box = range && wrapper.current?.getBoundingClientRect();
    if (!range || !box) return setLink(null);
    const mark = e.state.doc.resolve(range.from + 1).marks().find((m) => m.type.name === "link");
    const c = e.view.coordsAtPos(range.from);
    setLink((prev) => (prev && prev.from === range.from && prev.to === range.to ? prev : { ...range, href: String(mark?.attrs.href ?? ""), at: { left: Math.max(0, c.left - box.left), top: c.bottom - box.top + 4 } }));
  };

  /** The badge chip or the image the selection holds, for its control; null otherwise. */
  const trackBadge = () => {
    const e = editorRef.current;
    const selection = e?.state.selection as (Editor["state"]["selection"] & { node?: { type: { name: string }; attrs: Record<string, unknown> } }) | undefined;
    const node = selection?.node;
    const kind = node?.type.name;
    if (kind !== "badge") setBadge((prev) => (prev ? null : prev));
    if (kind !== "image") setImage((prev) => (prev ? null : prev));
    // Measured only for a selected chip or image: a caret moved by typing costs no layout here.
    if (!e || !selection || !node || (kind !== "badge" && kind !== "image")) return;
    const box = wrapper.current?.getBoundingClientRect();
    if (!box) return;
    const c = e.view.coordsAtPos(selection.from);
    const at = { left: Math.max(0, c.left - box.left), top: (kind === "image" ? (e.view.nodeDOM(selection.from) as HTMLElement | null)?.getBoundingClientRect().bottom ?? c.bottom : c.bottom) - box.top + 4 };
    const text = (name: string) => (node.attrs[name] == null ? null : String(node.attrs[name]));
    if (kind === "badge") setBadge({ pos: selection.from, text: text("text") ?? "", attrs: text("attrs"), at });
    else setImage({ pos: selection.from, src: text("src") ?? "", alt: text("alt") ?? "", width: text("width"), at });
  };

  /** `#id` targets for a link's address: the headings of the page it names, or this page's own. */
  const headingsFor = (href: string): Promise<string[]> | null => {
    const { loadHeadings, pagePath } = callbacks.current;
    const e = editorRef.current;
    const path = href.split("#", 1)[0]!;
    if (path === "" && e) return import("../markdown/outline.ts").then((m) => m.pageOutline(session.save(docJson(e))).map((h) => `#${h.id}`));
    const { loadPages } = callbacks.current;
    if (!loadHeadings || !loadPages || pagePath === undefined) return null;
    return import("../markdown/outline.ts").then(async (m) => {
      const target = m.linkedPagePath(pagePath, path);
      // Only a page that exists is read (a link to a missing page suggests nothing).
      const known = directory.snapshot() ?? new Map((await loadPages()).map((p) => [p.path.replace(/\.md$/, ""), p]));
      if (!target || !known.has(target.replace(/\.md$/, ""))) return [];
      return (await loadHeadings(target)).map((h) => `${path}#${h.id}`);
    });
  };

  // The JSON of each top-level node, kept while the node is unchanged (ProseMirror nodes are
  // immutable), so saving a long page converts and compares only the blocks that changed.
  const jsonOf = useMemo(() => new WeakMap<object, PMNode>(), []);
  const nodesJson = (nodes: readonly DocNode[]): PMNode[] =>
    nodes.map((child) => {
      let json = jsonOf.get(child);
      if (!json) jsonOf.set(child, (json = child.toJSON() as PMNode));
      return json;
    });
  const contentJson = (doc: Editor["state"]["doc"]): PMNode[] => nodesJson(pageBlocks(doc));

  const loading = useRef<Loading | null>(null);
  /** A long page: its blocks are held in groups (block-groups.ts). */
  const grouped = session.blockCount > GROUPED_FROM;
  /** Groups grown past twice their size are split again once the writer pauses (not a change to save). */
  const regroup = useRef<number | null>(null);
  const regroupWhenIdle = (e: Editor) => {
    if (regroup.current !== null) clearTimeout(regroup.current);
    regroup.current = window.setTimeout(() => {
      regroup.current = null;
      whenIdle(() => {
        if (e.isDestroyed || e.view.composing || !loading.current?.done) return;
        const tr = rebalance(e.state);
        if (tr) e.view.dispatch(tr.setMeta("preventUpdate", true));
      });
    }, 1000);
  };
  useEffect(() => () => void (regroup.current !== null && clearTimeout(regroup.current)), []);
  /** The document as opened, with every chunk appended to it while nothing else changed it. */
  const pristine = useRef<DocNode | null>(null);
  /** Appends the page's blocks up to `to` (without an undo step or a change signal). */
  const appendBlocks = (e: Editor, to: number): void => {
    const l = loading.current;
    if (!l) return;
    // A block the schema refused would be shown as its source, as the converter shows any block it
    // cannot hold: by now the person may have typed in the blocks above, and falling back to raw
    // mode for the whole page would reopen the text as loaded, without what they typed.
    const blocks = session.split.blocks;
    const nodes = session.blockNodes(l.next, to).map((n, k) => {
      try {
        return e.schema.nodeFromJSON(n);
      } catch {
        const { kind, text } = blocks[l.next + k]!;
        return e.schema.nodeFromJSON({ type: "rawBlock", attrs: { kind, text } });
      }
    });
    l.next = Math.min(to, session.blockCount);
    if (nodes.length === 0) return;
    l.loaded.push(...nodes);
    if (e.isDestroyed || l.detached.length > 0) {
      l.detached.push(...nodes);
      return;
    }
    // A caret moved or text typed a moment ago that ProseMirror has not read yet (it learns of
    // them in a later task) is read first, or this transaction would put the old caret back.
    (e.view as unknown as { domObserver?: { flush(): void } }).domObserver?.flush();
    const untouched = e.state.doc === pristine.current;
    const tr = e.state.tr;
    if (grouped) appendGrouped(tr, nodes);
    else tr.insert(e.state.doc.content.size, nodes);
    e.view.dispatch(tr.setMeta("addToHistory", false).setMeta("preventUpdate", true));
    if (untouched) pristine.current = e.state.doc;
  };
  /** Once every block is in: the document as loaded becomes the save baseline (its JSON made when idle). */
  const finishLoad = (e: Editor) => {
    const l = loading.current;
    if (!l || l.done) return;
    l.done = true;
    const loaded = l.loaded;
    if (!session.rebaseLater(loaded.length, () => nodesJson(loaded))) {
      setTimeout(() => callbacks.current.onUnsupported(), 0);
      return;
    }
    whenIdle(() => session.prepare());
    loadDirectory(e.state.doc);
    for (const task of l.waiting.splice(0)) task();
  };
  /** Appends whatever is still pending, now: a save, a switch to raw or leaving the page sees the whole page. */
  const completeLoad = (e: Editor) => {
    const l = loading.current;
    if (!l || l.done) return;
    l.cancel?.();
    l.cancel = null;
    appendBlocks(e, session.blockCount);
    finishLoad(e);
  };
  const docJson = (e: Editor): PMNode => {
    completeLoad(e);
    const content = contentJson(e.state.doc);
    const detached = loading.current?.detached ?? [];
    return { type: "doc", content: detached.length ? content.concat(nodesJson(detached)) : content };
  };

  const editor = useEditor(
    {
      extensions: [
        StarterKit.configure({ document: false, underline: false, trailingNode: false, code: false, link: false }),
        // Links drawn without `href` while editing (link-view.ts); copied out with it.
        EditingLink.configure({ openOnClick: false, autolink: true }),
        // A long page's blocks in groups (block-groups.ts): the document, the group, their keys and commands.
        GroupedDocument,
        BlockGroup,
        GroupEdgeKeys,
        GroupCommands,
        // Inline code that can sit inside a link or emphasis, as Markdown allows (Tiptap's excludes every other mark).
        Code.extend({ excludes: "" }),
        TaskList,
        TaskItem.configure({ nested: true }),
        AuthImage.configure({ inline: true }),
        RawBlock,
        ...TableGrid,
        Wikilink.configure({ directory }),
        Callout,
        ...Containers,
        Embed,
        ...SourceBlocks,
        Badge,
        Placeholder.configure({ placeholder: "Start writing…" }),
        // Marks the top-level block holding the caret: it is always laid out (styles.css).
        Focus.configure({ className: "has-focus", mode: "shallowest" }),
      ],
      // Opened empty: the page's document is drawn once, below, after EditorContent has attached
      // the view (attaching it redraws every block, React node views included).
      editable: props.editable,
      injectNonce: cspNonce(),
      editorProps: {
        attributes: { "aria-label": "Page content", role: "textbox", "aria-multiline": "true", class: "prose" },
        // What other programs put on the clipboard is cleaned before ProseMirror parses it (paste-clean.ts).
        transformPastedHTML: (html) => cleanPastedHtml(html) ?? "",
        handlePaste: (view, event) => {
          const data = event.clipboardData;
          const files = imageFiles(data?.files);
          if (files.length > 0 && callbacks.current.uploadImage) {
            event.preventDefault();
            insertImages(files, null);
            return true;
          }
          const html = data?.getData("text/html") ?? "";
          const text = data?.getData("text/plain") ?? "";
          // A code editor's copy (styled spans) and an oversized document are pasted as their text;
          // Markdown text becomes the blocks it describes.
          const asText = html === "" || html.length > MAX_PASTE_HTML || (data?.types ?? []).includes("vscode-editor-data");
          // Inside a code block text is text; inside a table the grid takes it cell by cell (table-grid.ts).
          const $from = view.state.selection.$from;
          const inCell = Array.from({ length: $from.depth + 1 }, (_, d) => $from.node(d).type.name).some((n) => n === "tableCell" || n === "tableHeader");
          if (!asText || text === "" || $from.parent.type.spec.code || inCell) return false;
          if (looksLikeMarkdown(text)) {
            const nodes = splitBlocks(text).blocks.map(blockToNode);
            if (nodes.length > 0 && editorRef.current) {
              event.preventDefault();
              editorRef.current.chain().focus().insertContent(nodes).run();
              return true;
            }
          }
          if (html === "") return false;
          event.preventDefault();
          view.pasteText(text);
          return true;
        },
        handleDrop: (view, event, _slice, moved) => {
          const files = moved ? [] : imageFiles(event.dataTransfer?.files);
          if (files.length === 0 || !callbacks.current.uploadImage) return false;
          event.preventDefault();
          insertImages(files, view.posAtCoords({ left: event.clientX, top: event.clientY })?.pos ?? null);
          return true;
        },
        handleKeyDown: (_view, event) => slash.handleKey(event),
        handleTextInput: (view, from, _to, text) => {
          // "/" at the start of a paragraph or after a space opens the slash menu ("a/b" stays text).
          const $from = view.state.doc.resolve(from);
          if (text === "/" && $from.parent.type.name === "paragraph" && (from === $from.start() || /\s/.test(view.state.doc.textBetween(from - 1, from)))) {
            setTimeout(() => slash.open(from), 0);
          }
          // The second "[" of "[[" opens the page picker; the brackets stay typed until a page is chosen.
          if (text === "[" && from > 0 && view.state.doc.textBetween(from - 1, from) === "[") setTimeout(() => openPicker(from + 1), 0);
          return false;
        },
      },
      onCreate: ({ editor: e }) => {
        // A page drawn whole: the document as loaded is the baseline; its JSON is made once the
        // page is idle (or at the first save, if sooner), not while it opens.
        if (loading.current && loading.current.next >= session.blockCount) finishLoad(e);
      },
      onUpdate: ({ editor: e }) => {
        slash.track();
        // A wikilink typed or pasted lands in the caret's block: only that block is looked at.
        const $head = e.state.selection.$head;
        if ($head.depth > 0) loadDirectory($head.node(blockDepth($head)));
        if (grouped) regroupWhenIdle(e);
        // A badge's control edits it in place, the chip staying selected.
        if (!e.state.selection.empty) trackBadge();
        callbacks.current.onChange();
      },
      onSelectionUpdate: () => {
        slash.track();
        trackLink();
        trackBadge();
      },
      onBlur: () => slash.close(),
    },
    [session],
  );
  editorRef.current = editor;
  // The page's document, drawn once. Tiptap builds the view in a detached element and EditorContent
  // rebuilds every node view when it attaches it; a 1,000-block page drawn at creation was drawn
  // twice. A fresh state (not a transaction) leaves undo history empty and emits no update. Runs
  // after EditorContent's mount (children first) and before the editor's create event (a timer).
  // A long page's first screenful only: the rest follow in idle time (appendBlocks), so the
  // page answers the keyboard once its first chunk is drawn.
  useLayoutEffect(() => {
    if (!editor || editor.isDestroyed) return;
    const total = session.blockCount;
    const first = Math.min(firstBlocks(), total);
    const opening = total > first ? session.blockNodes(0, first) : null;
    const head = opening ? { type: "doc", content: grouped ? groupJson(opening) : opening } : session.initial;
    const doc = createDocument(head as Parameters<typeof createDocument>[0], editor.schema);
    editor.view.updateState(EditorState.create({ doc, plugins: editor.state.plugins }));
    pristine.current = editor.state.doc;
    const loaded = pageBlocks(doc);
    const l: Loading = { next: first, loaded, detached: [], cancel: null, done: false, waiting: [] };
    loading.current = l;
    // A first chunk the editor could not hold block for block: raw mode, as for the whole page.
    if (total > first && loaded.length !== first) {
      l.done = true;
      setTimeout(() => callbacks.current.onUnsupported(), 0);
      return;
    }
    const step = () => {
      l.cancel = inIdleTime((timeLeft) => {
        l.cancel = null;
        if (editor.isDestroyed || l.done) return;
        // Chunks while the browser has time, at least one per call so a busy machine still loads,
        // and for a few milliseconds at most: a key pressed meanwhile waits no longer than that.
        const until = performance.now() + SLICE_MS;
        do {
          appendBlocks(editor, l.next + CHUNK_BLOCKS);
        } while (l.next < total && timeLeft() > 1 && performance.now() < until);
        if (l.next < total) step();
        else finishLoad(editor);
      });
    };
    // The rest starts a moment after the first screenful is shown: the click and the first keys
    // of a person who starts at once meet a quiet page.
    if (total > first) {
      const wait = setTimeout(step, START_AFTER_MS);
      l.cancel = () => clearTimeout(wait);
    }
    return () => l.cancel?.();
  }, [editor, session]);
  // Links are drawn one way while editing and another while reading (link-view.ts): the editor
  // draws its marks again when the person's right to edit changes while the page is open.
  const drawnEditable = useRef(props.editable);
  useEffect(() => {
    // No update event: a page opening is no change to save (and the save check would append
    // every pending block at once).
    if (editor && editor.isEditable !== props.editable) editor.setEditable(props.editable, false);
    if (editor && drawnEditable.current !== props.editable) {
      drawnEditable.current = props.editable;
      editor.createNodeViews();
    }
  }, [editor, props.editable]);
  useEffect(() => {
    if (!editor) return;
    const storage = (editor.storage as unknown as { tableGridKeys: TableGridStorage }).tableGridKeys;
    storage.openMenu = ({ x, y }) => {
      const box = wrapper.current?.getBoundingClientRect();
      if (box) setTableMenu({ left: Math.max(0, x - box.left), top: y - box.top + 2 });
    };
    return () => {
      storage.openMenu = null;
    };
  }, [editor]);
  useImperativeHandle(
    ref,
    () => ({
      getMarkdown: () => (editor ? session.save(docJson(editor)) : props.markdown),
      // Nodes are immutable: the same document is the same object, and an edit undone is equal to
      // it again (`eq` compares unchanged blocks by identity). After the editor is gone, no.
      unchanged: () => {
        const opened = pristine.current;
        if (!editor || editor.isDestroyed || !opened) return false;
        const now = editor.state.doc;
        return sameBlocks(now, opened);
      },
      whenLoaded: (task) => {
        const l = loading.current;
        if (l && !l.done && editor && !editor.isDestroyed) l.waiting.push(task);
        else task();
      },
      focus: () => editor?.commands.focus(),
    }),
    [editor, session, props.markdown],
  );
  if (!editor) return null;
  return (
    <div className="rich-editor" ref={wrapper}>
      {props.editable && <Toolbar editor={editor} />}
      <EditorContent editor={editor} />
      {props.editable && <TableHandles editor={editor} wrapper={wrapper} />}
      {tableMenu && props.editable && <TableMenu editor={editor} at={tableMenu} onClose={() => setTableMenu(null)} />}
      {badge && !slash.state && <BadgePopover editor={editor} badge={badge} />}
      {image && !slash.state && <ImagePopover editor={editor} image={image} />}
      {link && !slash.state && <LinkPopover editor={editor} link={link} onClose={() => setLink(null)} headingsFor={headingsFor} />}
      {slash.state && <SlashMenu items={slash.items} active={slash.state.active} at={slash.state.at} onPick={slash.pick} />}
      {picker && (
        <PagePicker
          pages={pages}
          at={picker}
          onPick={pickPage}
          loadHeadings={props.loadHeadings}
          ownHeadings={() => import("../markdown/outline.ts").then((m) => m.pageOutline(session.save(docJson(editor))))}
          onClose={() => {
            setPicker(null);
            // Back to the text after Esc; a click elsewhere keeps its own focus.
            // Once the picker is gone (its input held the focus until then).
            setTimeout(() => {
              if (!document.activeElement || document.activeElement === document.body) editor.commands.focus();
            }, 0);
          }}
        />
      )}
    </div>
  );
});
