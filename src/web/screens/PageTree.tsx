/** The sidebar's page tree: nested folders that expand and collapse, the open page marked. */
import { useState } from "react";
import type { TreeNode } from "../api/types.ts";
import { linkClick, pageUrl } from "../app/router.ts";

function pagePathOf(node: TreeNode): string | null {
  if (node.kind === "page") return node.path;
  if (node.page_id) return node.path.endsWith(".md") ? node.path : `${node.path}/index.md`;
  return null;
}

function Node({ node, slug, current, depth, onNewPage }: { node: TreeNode; slug: string; current: string | undefined; depth: number; onNewPage(folder: string): void }) {
  const [open, setOpen] = useState(true);
  const pagePath = pagePathOf(node);
  const active = pagePath !== null && pagePath === current;
  const label = node.title || node.name;
  return (
    <li role="treeitem" aria-expanded={node.kind === "folder" ? open : undefined} aria-selected={active} aria-level={depth + 1}>
      <div className={`tree-row${active ? " active" : ""}`} style={{ paddingLeft: `${depth * 0.9 + 0.4}rem` }}>
        {node.kind === "folder" ? (
          <button type="button" className="tree-toggle" aria-label={`${open ? "Collapse" : "Expand"} ${label}`} onClick={() => setOpen(!open)}>
            {open ? "▾" : "▸"}
          </button>
        ) : (
          <span className="tree-toggle" aria-hidden="true" />
        )}
        {pagePath ? (
          <a href={pageUrl(slug, pagePath)} onClick={linkClick} aria-current={active ? "page" : undefined}>
            {label}
          </a>
        ) : (
          <span className="tree-folder">{label}</span>
        )}
        {node.kind === "folder" && (
          <button type="button" className="tree-add" aria-label={`New page in ${label}`} title="New page here" onClick={() => onNewPage(node.path.replace(/\/?index\.md$/, ""))}>
            +
          </button>
        )}
      </div>
      {node.kind === "folder" && open && node.children.length > 0 && (
        <ul role="group">
          {node.children.map((c) => (
            <Node key={c.path} node={c} slug={slug} current={current} depth={depth + 1} onNewPage={onNewPage} />
          ))}
        </ul>
      )}
    </li>
  );
}

export function PageTree(props: { tree: TreeNode[]; slug: string; current: string | undefined; onNewPage(folder: string): void }) {
  return (
    <ul className="tree" role="tree" aria-label="Pages">
      {props.tree.map((n) => (
        <Node key={n.path} node={n} slug={props.slug} current={props.current} depth={0} onNewPage={props.onNewPage} />
      ))}
    </ul>
  );
}
