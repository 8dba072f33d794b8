/**
 * The sidebar's page tree: nested folders that expand and collapse, the open page marked, and its
 * management — a per-row actions menu (new page here, rename or move, "move to" a folder, move
 * up/down for keyboard users, delete) and drag and drop (before/after a row reorders, onto a folder moves into it).
 */
import { createContext, lazy, Suspense, useContext, useEffect, useRef, useState, type DragEvent } from "react";
import { messageOf } from "../api/client.ts";
import type { TreeNode } from "../api/types.ts";
import { linkClick, pageUrl } from "../app/router.ts";
import { Notice } from "../ui/controls.tsx";
import { movePage, reorder } from "../tree/tree-api.ts";
import { dropPlan, levelOf, pagePathOf, pagesUnder, reorderBody, stepBody, type DropPlace } from "../tree/tree-ops.ts";
import type { TreeDialogState } from "../tree/TreeDialogs.tsx";

// The rename, move and delete dialogs load with the first one opened (kept out of the initial JS).
const TreeDialogs = lazy(() => import("../tree/TreeDialogs.tsx").then((m) => ({ default: m.TreeDialogs })));

export interface TreeRights {
  create: boolean;
  edit: boolean;
  delete: boolean;
  /** A move puts a page at a new path: allowed with the create right (docs/decisions/page-moves.md). */
  move: boolean;
}

interface TreeCtx {
  slug: string;
  viewers: Record<string, string[]>;
  current: string | undefined;
  rights: TreeRights;
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
  if (ctx.rights.move && pagesUnder(node).length > 0) items.push(["Move to…", () => ctx.openDialog({ kind: "move", node })]);
  if (page && node.kind === "page" && ctx.rights.delete) items.push(["Delete…", () => ctx.openDialog({ kind: "delete", node })]);
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
  const [open, setOpen] = useState(true);
  const [dropAt, setDropAt] = useState<DropPlace | null>(null);
  const pagePath = pagePathOf(node);
  const active = pagePath !== null && pagePath === ctx.current;
  const label = node.title || node.name;
  const draggable = ctx.rights.edit && !!node.page_id;
  return (
    <li role="treeitem" aria-expanded={node.kind === "folder" ? open : undefined} aria-selected={active} aria-level={depth + 1}>
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
          <button type="button" className="tree-toggle" aria-label={`${open ? "Collapse" : "Expand"} ${label}`} onClick={() => setOpen(!open)}>
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
      {node.kind === "folder" && open && node.children.length > 0 && (
        <ul role="group">
          {node.children.map((c) => (
            <Node key={c.path} node={c} depth={depth + 1} />
          ))}
        </ul>
      )}
    </li>
  );
}

export function PageTree(props: {
  tree: TreeNode[];
  slug: string;
  current: string | undefined;
  rights: TreeRights;
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
    onNewPage: props.onNewPage,
    openDialog(state) {
      setDialogsUsed(true);
      setDialog(state);
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
            tree={tree}
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
