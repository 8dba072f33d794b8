/**
 * The sidebar's page tree: nested folders that expand and collapse, the open page marked, and its
 * management — a per-row actions menu (new page here, rename or move, "move to" a folder, move
 * up/down for keyboard users, delete) and drag and drop (before/after a row reorders, onto a folder moves into it).
 */
import { createContext, lazy, Suspense, useContext, useEffect, useLayoutEffect, useRef, useState, type DragEvent } from "react";
import { messageOf } from "../api/client.ts";
import type { TreeNode, WorkspaceRights } from "../api/types.ts";
import { linkClick, pageUrl } from "../app/router.ts";
import { Notice } from "../ui/controls.tsx";
import { movePage } from "../api/pages.ts";
import { reorder } from "../api/tree.ts";
import { dropPlan, findNode, levelOf, pagePathOf, pagesUnder, reorderBody, stepBody, type DropPlace } from "../tree/tree-ops.ts";
import type { TreeDialogState } from "../tree/TreeDialogs.tsx";

// The rename, move and delete dialogs load with the first one opened (kept out of the initial JS).
const TreeDialogs = lazy(() => import("../tree/TreeDialogs.tsx").then((m) => ({ default: m.TreeDialogs })));

/** The workspace's rights the tree acts on, as the server sent them (docs/decisions/web-rights.md). */
type TreeRights = Pick<WorkspaceRights, "create" | "edit" | "delete" | "move" | "admin" | "manage_access">;

/** A folder with more children than this renders only the rows in view (a scroll box of its own). */
const VIRTUAL_FROM = 200;
const ROW_PX = 30;
const OVERSCAN = 15;

interface TreeCtx {
  slug: string;
  viewers: Record<string, string[]>;
  current: string | undefined;
  rights: TreeRights;
  /** The tree loads by folder: a folder opens folded unless it was loaded (on the way to the open page). */
  lazy: boolean;
  expand(folder: string): void;
  onNewPage(folder: string): void;
  openDialog(state: TreeDialogState): void;
  step(node: TreeNode, dir: -1 | 1): void;
  dragStart(node: TreeNode): void;
  drop(target: TreeNode, place: DropPlace): void;
  dragging: TreeNode | null;
}
const Ctx = createContext<TreeCtx | null>(null);

function placeOf(e: DragEvent<HTMLElement>, node: TreeNode): DropPlace {
  const r = e.currentTarget.getBoundingClientRect();
  const y = (e.clientY - r.top) / r.height;
  if (node.kind === "folder") return y < 0.25 ? "before" : y > 0.75 ? "after" : "inside";
  return y < 0.5 ? "before" : "after";
}

function RowMenu({ node, label }: { node: TreeNode; label: string }) {
  const ctx = useContext(Ctx)!;
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    ref.current?.querySelector<HTMLElement>("[role=menuitem]")?.focus();
    const close = (e: MouseEvent) => {
      if (!ref.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("mousedown", close);
    return () => document.removeEventListener("mousedown", close);
  }, [open]);
  const page = pagePathOf(node);
  const items: Array<[string, () => void]> = [];
  if (node.kind === "folder" && ctx.rights.create) items.push(["New page here", () => ctx.onNewPage(node.path)]);
  if (page && node.kind === "page" && ctx.rights.move) items.push(["Rename or move…", () => ctx.openDialog({ kind: "rename", node })]);
  if (node.page_id && ctx.rights.edit) {
    items.push(["Move up", () => ctx.step(node, -1)]);
    items.push(["Move down", () => ctx.step(node, 1)]);
  }
  if (ctx.rights.move && (pagesUnder(node).length > 0 || (node.child_count ?? 0) > 0)) items.push(["Move to…", () => ctx.openDialog({ kind: "move", node })]);
  if (page && node.kind === "page" && ctx.rights.delete) items.push(["Delete…", () => ctx.openDialog({ kind: "delete", node })]);
  // Admins, and editors when the workspace lets them manage access (the server checks their edit on the path).
  if (ctx.rights.manage_access && (node.kind === "folder" || node.path.endsWith(".md"))) items.push(["Share / access…", () => ctx.openDialog({ kind: "access", node })]);
  if (items.length === 0) return null;
  return (
    <div
      className="row-menu"
      ref={ref}
      onKeyDown={(e) => {
        if (e.key === "Escape" && open) {
          e.stopPropagation();
          setOpen(false);
          ref.current?.querySelector<HTMLElement>("button")?.focus();
        }
        if (open && (e.key === "ArrowDown" || e.key === "ArrowUp")) {
          e.preventDefault();
          const all = [...(ref.current?.querySelectorAll<HTMLElement>("[role=menuitem]") ?? [])];
          const i = all.indexOf(document.activeElement as HTMLElement);
          all[(i + (e.key === "ArrowDown" ? 1 : all.length - 1)) % all.length]?.focus();
        }
      }}
    >
      <button type="button" className="tree-more" aria-label={`Actions for ${label}`} aria-haspopup="menu" aria-expanded={open} onClick={() => setOpen(!open)}>
        ⋯
      </button>
      {open && (
        <div className="menu tree-menu" role="menu" aria-label={`Actions for ${label}`}>
          {items.map(([text, run]) => (
            <button
              key={text}
              type="button"
              role="menuitem"
              onClick={() => {
                setOpen(false);
                run();
              }}
            >
              {text}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}

function Node({ node, depth }: { node: TreeNode; depth: number }) {
  const ctx = useContext(Ctx)!;
  const [open, setOpen] = useState(!node.unloaded);
  // Loading by folder, a page opened below a folded folder (from search, a link) unfolds it.
  const holdsCurrent = ctx.lazy && node.kind === "folder" && !!ctx.current?.startsWith(node.path + "/");
  useEffect(() => {
    if (holdsCurrent) setOpen(true);
  }, [holdsCurrent]);
  const [dropAt, setDropAt] = useState<DropPlace | null>(null);
  const pagePath = pagePathOf(node);
  const active = pagePath !== null && pagePath === ctx.current;
  const label = node.title || node.name;
  const draggable = ctx.rights.edit && !!node.page_id;
  return (
    <li data-node={node.path} role="treeitem" aria-expanded={node.kind === "folder" ? open : undefined} aria-selected={active} aria-level={depth + 1}>
      <div
        className={`tree-row${active ? " active" : ""}${dropAt ? ` drop-${dropAt}` : ""}`}
        style={{ paddingLeft: `${depth * 0.9 + 0.4}rem` }}
        data-path={node.path}
        draggable={draggable}
        onDragStart={(e) => {
          e.dataTransfer.effectAllowed = "move";
          e.dataTransfer.setData("text/plain", node.path);
          ctx.dragStart(node);
        }}
        onDragOver={(e) => {
          if (!ctx.dragging || ctx.dragging.path === node.path) return;
          e.preventDefault();
          e.dataTransfer.dropEffect = "move";
          setDropAt(placeOf(e, node));
        }}
        onDragLeave={() => setDropAt(null)}
        onDrop={(e) => {
          e.preventDefault();
          setDropAt(null);
          ctx.drop(node, placeOf(e, node));
        }}
      >
        {node.kind === "folder" ? (
          <button type="button" className="tree-toggle" aria-label={`${open ? "Collapse" : "Expand"} ${label}`}
            onClick={() => {
              if (!open && node.unloaded) ctx.expand(node.path);
              setOpen(!open);
            }}
          >
            {open ? "▾" : "▸"}
          </button>
        ) : (
          <span className="tree-toggle" aria-hidden="true" />
        )}
        {pagePath ? (
          <a href={pageUrl(ctx.slug, pagePath)} onClick={linkClick} aria-current={active ? "page" : undefined} draggable={false}>
            {label}
          </a>
        ) : (
          <span className="tree-folder">{label}</span>
        )}
        {node.restricted && (
          <span className="tree-lock" role="img" aria-label="Restricted" title="Restricted: only the people on its access list (and admins) see it">
            {/* Drawn, not an emoji: a system without an emoji font would show an empty box. */}
            <svg viewBox="0 0 16 16" width="12" height="12" aria-hidden="true" focusable="false">
              <path d="M4.5 7V5a3.5 3.5 0 0 1 7 0v2" fill="none" stroke="currentColor" strokeWidth="1.6" />
              <rect x="3" y="7" width="10" height="7.5" rx="1.5" fill="currentColor" />
            </svg>
          </span>
        )}
        {pagePath && ctx.viewers[pagePath] && (
          <span className="viewers" title={`${ctx.viewers[pagePath]!.join(", ")} viewing`} aria-label={`Viewing now: ${ctx.viewers[pagePath]!.join(", ")}`} role="img">
            {ctx.viewers[pagePath]!.map((n) => n.trim()[0]?.toUpperCase() ?? "?").join("")}
          </span>
        )}
        {node.kind === "folder" && ctx.rights.create && (
          <button type="button" className="tree-add" aria-label={`New page in ${label}`} title="New page here" onClick={() => ctx.onNewPage(node.path.replace(/\/?index\.md$/, ""))}>
            +
          </button>
        )}
        <RowMenu node={node} label={label} />
      </div>
      {node.kind === "folder" && open && node.unloaded && (
        <div className="tree-loading muted" role="status" style={{ paddingLeft: `${(depth + 1) * 0.9 + 1.6}rem` }}>
          Loading…
        </div>
      )}
      {node.kind === "folder" && open && !node.unloaded && node.children.length > 0 && <Level nodes={node.children} depth={depth + 1} />}
    </li>
  );
}

/** One folder's children: all of them, or for a long folder only those in view. */
function Level({ nodes, depth }: { nodes: TreeNode[]; depth: number }) {
  if (nodes.length > VIRTUAL_FROM) return <VirtualLevel nodes={nodes} depth={depth} />;
  return (
    <ul role="group">
      {nodes.map((c) => (
        <Node key={c.path} node={c} depth={depth} />
      ))}
    </ul>
  );
}

/**
 * A long folder in a scroll box of its own, rendering the rows in view (and a few around them)
 * between two spacers. Rows are one line high; an opened sub-folder is measured once rendered.
 * The open page's row is scrolled into view when the folder appears or the page changes.
 */
function VirtualLevel({ nodes, depth }: { nodes: TreeNode[]; depth: number }) {
  const ctx = useContext(Ctx)!;
  const box = useRef<HTMLUListElement>(null);
  const heights = useRef(new Map<string, number>());
  const [view, setView] = useState({ top: 0, height: 600 });
  const [, remeasured] = useState(0);
  const heightOf = (n: TreeNode) => heights.current.get(n.path) ?? ROW_PX;
  const offsets: number[] = [0];
  for (const n of nodes) offsets.push(offsets[offsets.length - 1]! + heightOf(n));
  const total = offsets[nodes.length]!;
  let first = 0;
  while (first < nodes.length && offsets[first + 1]! < view.top) first++;
  let last = first;
  while (last < nodes.length && offsets[last]! < view.top + view.height) last++;
  first = Math.max(0, first - OVERSCAN);
  last = Math.min(nodes.length, last + OVERSCAN);

  const currentIndex = ctx.current ? nodes.findIndex((n) => pagePathOf(n) === ctx.current) : -1;
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    if (currentIndex >= 0) el.scrollTop = Math.max(0, offsets[currentIndex]! - el.clientHeight / 2);
    setView({ top: el.scrollTop, height: el.clientHeight || 600 });
  }, [currentIndex]); // eslint-disable-line react-hooks/exhaustive-deps

  useLayoutEffect(() => {
    // Rows taller than one line (an opened sub-folder) are measured, and the offsets follow.
    let changed = false;
    for (const li of box.current?.querySelectorAll<HTMLElement>(":scope > li[data-node]") ?? []) {
      const path = li.dataset.node!;
      const h = li.offsetHeight;
      if (h > 0 && h !== (heights.current.get(path) ?? ROW_PX)) {
        heights.current.set(path, h);
        changed = true;
      }
    }
    if (changed) remeasured((n) => n + 1);
  });

  return (
    <ul role="group" className="tree-long" ref={box} onScroll={(e) => setView({ top: e.currentTarget.scrollTop, height: e.currentTarget.clientHeight })}>
      <li aria-hidden="true" style={{ height: offsets[first] }} />
      {nodes.slice(first, last).map((c) => (
        <Node key={c.path} node={c} depth={depth} />
      ))}
      <li aria-hidden="true" style={{ height: total - offsets[last]! }} />
    </ul>
  );
}

export function PageTree(props: {
  tree: TreeNode[];
  slug: string;
  current: string | undefined;
  rights: TreeRights;
  /** The tree loads by folder (see useTree). */
  lazy?: boolean;
  expand?(folder: string): void;
  /** The whole tree, for the dialogs that list every folder or move a folder's every page. */
  wholeTree?(): Promise<TreeNode[]>;
  /** Page path → names of the other people who have it open. */
  viewers?: Record<string, string[]>;
  onNewPage(folder: string): void;
  /** Re-read the tree after a change. */
  onChanged(): Promise<void> | void;
  onMoved(from: string, to: string): void;
  onDeleted(path: string): void;
}) {
  const [dialog, setDialog] = useState<TreeDialogState>(null);
  // Once loaded the dialogs stay mounted, so a closing <dialog> hands focus back to its opener.
  const [dialogsUsed, setDialogsUsed] = useState(false);
  const [dialogTree, setDialogTree] = useState<TreeNode[] | null>(null);
  const [dragging, setDragging] = useState<TreeNode | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const { tree, slug } = props;

  const run = async (label: string, work: () => Promise<void>) => {
    setBusy(label);
    setError(null);
    try {
      await work();
    } catch (e) {
      setError(e);
    } finally {
      await props.onChanged();
      setBusy(null);
    }
  };

  const ctx: TreeCtx = {
    slug,
    viewers: props.viewers ?? {},
    current: props.current,
    rights: props.rights,
    lazy: !!props.lazy,
    expand: (folder) => props.expand?.(folder),
    onNewPage: props.onNewPage,
    openDialog(state) {
      if (!props.lazy || !props.wholeTree || !state) {
        setDialogTree(null);
        setDialogsUsed(true);
        setDialog(state);
        return;
      }
      // Loaded by folder, the tree here is partial: the dialogs work on the whole one.
      setBusy("Loading the folders…");
      setError(null);
      props.wholeTree().then(
        (whole) => {
          setDialogTree(whole);
          setDialogsUsed(true);
          setDialog({ ...state, node: findNode(whole, state.node.path) ?? state.node });
          setBusy(null);
        },
        (e: unknown) => {
          setError(e);
          setBusy(null);
        },
      );
    },
    dragging,
    dragStart: setDragging,
    step(node, dir) {
      const body = stepBody(tree, node, dir);
      if (body) void run("Saving the order…", () => reorder(slug, body));
    },
    drop(target, place) {
      const dragged = dragging;
      setDragging(null);
      if (!dragged) return;
      const plan = dropPlan(tree, dragged, target, place);
      if (!plan) return;
      if (plan.moveTo && !props.rights.move) {
        setError(new Error("Your role in this workspace cannot move pages to another folder; reordering within a folder is allowed."));
        return;
      }
      void run(plan.moveTo ? "Moving…" : "Saving the order…", async () => {
        if (plan.moveTo) {
          const from = pagePathOf(dragged)!;
          await movePage(slug, from, plan.moveTo);
          props.onMoved(from, plan.moveTo);
        }
        if (plan.reorder) {
          const level = levelOf(tree, plan.reorder.parent) ?? [];
          await reorder(slug, reorderBody(level, plan.reorder.parent, dragged.page_id!, plan.reorder.beforeId));
        }
      });
    },
  };

  return (
    <Ctx.Provider value={ctx}>
      {error !== null && <Notice kind="error">{messageOf(error)}</Notice>}
      {busy && (
        <div className="tree-busy muted" role="status">
          {busy}
        </div>
      )}
      <ul className="tree" role="tree" aria-label="Pages" onDragEnd={() => setDragging(null)}>
        {tree.map((n) => (
          <Node key={n.path} node={n} depth={0} />
        ))}
      </ul>
      {dialogsUsed && (
        <Suspense fallback={null}>
          <TreeDialogs
            slug={slug}
            admin={props.rights.admin}
            tree={dialogTree ?? tree}
            state={dialog}
            onClose={() => setDialog(null)}
            onMoved={props.onMoved}
            onDeleted={props.onDeleted}
            onChanged={() => void props.onChanged()}
          />
        </Suspense>
      )}
    </Ctx.Provider>
  );
}
