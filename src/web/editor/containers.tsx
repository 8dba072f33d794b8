/**
 * Components made of parts — tabs (`::tab`), steps (`::step`), cards (`::card`) — and the
 * accordion, as blocks. Each part has a label field and a body edited richly; the container has a
 * strip to add parts, and tabs show one panel at a time (the strip picks it). Labels and the
 * attributes after them are plain text in inputs: nothing in them is ever rendered as markup.
 */
import { Node, mergeAttributes, type Editor } from "@tiptap/core";
import type { Node as PMNodeType } from "@tiptap/pm/model";
import type { NodeView } from "@tiptap/pm/view";
import { blockView, el, setOptions, setValue, updateAttrs } from "./block-view.ts";

const PARTS: Record<string, { child: string; noun: string }> = {
  tabs: { child: "tab", noun: "tab" },
  steps: { child: "step", noun: "step" },
  cards: { child: "card", noun: "card" },
};

const labelOf = (node: PMNodeType) => (node.attrs.type === null ? "" : String(node.attrs.type));
const capital = (noun: string) => noun[0]!.toUpperCase() + noun.slice(1);
/** A title as typed into a label field: `]` and line ends would end the directive's label. */
const cleanLabel = (text: string) => text.replace(/[\]\n]/g, "");

type GetPos = () => number | undefined;
type View = (node: PMNodeType, editor: Editor, getPos: GetPos) => NodeView;

/** Inserts a new part at the end of the container at `pos`, its body one empty paragraph. */
function addPart(editor: Editor, pos: number, container: PMNodeType, child: string, label: string) {
  const at = pos + container.nodeSize - 1;
  editor.chain().focus().insertContentAt(at, { type: child, attrs: { type: label, extra: "", colons: "::" }, content: [{ type: "paragraph" }] }).run();
}

/** A title field bound to the node's label. */
function labelInput(ariaLabel: string, editor: Editor, getPos: GetPos, node: () => PMNodeType): HTMLInputElement {
  const input = el("input", { "aria-label": ariaLabel }) as HTMLInputElement;
  input.addEventListener("input", () => updateAttrs(editor, getPos, node, { type: cleanLabel(input.value) }));
  return input;
}

const containerView: View = (node, editor, getPos) => {
  const { child, noun } = PARTS[node.type.name]!;
  const Noun = capital(noun);
  const isTabs = node.type.name === "tabs";
  let current = node;
  let active = 0;
  let stripDrawn = "";
  const tablist = el("div", { class: "component-tabs", role: "tablist", "aria-label": "Tabs" });
  const strip = el("div", { class: "component-strip", contenteditable: "false" }, isTabs ? tablist : el("span", { class: "component-kind" }, `${Noun}s`));
  const parts = el("div", { class: "component-parts" });
  const dom = el("div", { class: `component-block ${node.type.name}-block` }, strip, parts);
  const add = el("button", { type: "button", class: "component-add" }, `Add ${noun}`);
  // The caret stays in the text while the new part is added, as with the toolbar.
  add.addEventListener("mousedown", (e) => e.preventDefault());
  add.addEventListener("click", () => {
    const pos = getPos();
    if (typeof pos !== "number") return;
    const count = current.childCount;
    active = count;
    addPart(editor, pos, current, child, `${Noun} ${count + 1}`);
    draw(current);
  });
  const labels = () => {
    const out: string[] = [];
    current.forEach((c) => out.push(labelOf(c)));
    return out;
  };
  const draw = (n: PMNodeType) => {
    current = n;
    const names = labels();
    const shown = Math.min(active, names.length - 1);
    // The strip is rebuilt only when what it shows changes (not on each keystroke in a body).
    const drawn = `${shown}\n${names.join("\n")}`;
    if (isTabs && drawn !== stripDrawn) {
      stripDrawn = drawn;
      dom.dataset.active = String(shown);
      tablist.replaceChildren(
        ...names.map((l, i) => {
          const b = el("button", { type: "button", role: "tab", "aria-selected": String(i === shown), ...(i === shown ? { class: "active" } : {}) }, l || `Tab ${i + 1}`);
          b.addEventListener("click", () => {
            active = i;
            draw(current);
          });
          return b;
        }),
      );
    }
    if (editor.isEditable && add.parentNode !== strip) strip.append(add);
    else if (!editor.isEditable) add.remove();
  };
  return blockView(node, dom, parts, draw);
};

const partView: View = (node, editor, getPos) => {
  const noun = node.type.name;
  const Noun = capital(noun);
  let current = node;
  const input = labelInput(`${Noun} title`, editor, getPos, () => current);
  const link = el("span", { class: "muted component-link" });
  const remove = el("button", { type: "button" }, "×");
  remove.title = `Remove this ${noun}`;
  remove.addEventListener("click", () => {
    const pos = getPos();
    if (typeof pos !== "number") return;
    const $pos = editor.state.doc.resolve(pos);
    // The last part goes with its container, which cannot stand empty.
    if ($pos.parent.childCount === 1) editor.chain().focus().deleteRange({ from: $pos.before(), to: $pos.after() }).run();
    else editor.chain().focus().deleteRange({ from: pos, to: pos + current.nodeSize }).run();
  });
  const head = el("div", { class: "component-part-head", contenteditable: "false" }, input);
  const body = el("div", { class: "component-body" });
  const dom = el("div", { class: `component-part ${noun}-part` }, head, body);
  return blockView(node, dom, body, (n) => {
    current = n;
    setValue(input, labelOf(n));
    input.readOnly = !editor.isEditable;
    const target = /\blink=("[^"]*"|\S+?)(?=[\s}])/.exec(String(n.attrs.extra ?? ""))?.[1]?.replace(/^"|"$/g, "");
    link.textContent = target ? `→ ${target}` : "";
    remove.setAttribute("aria-label", `Remove ${noun} ${labelOf(n)}`.trim());
    // Children are added and removed in place: the title field keeps the focus while typed in.
    if (target && link.parentNode !== head) input.after(link);
    else if (!target) link.remove();
    if (editor.isEditable && remove.parentNode !== head) head.append(remove);
    else if (!editor.isEditable) remove.remove();
  });
};

const accordionView: View = (node, editor, getPos) => {
  let current = node;
  const input = labelInput("Accordion title", editor, getPos, () => current);
  const head = el("div", { class: "component-part-head", contenteditable: "false" }, el("span", { class: "component-kind", "aria-hidden": "true" }, "▸"), input);
  const body = el("div", { class: "component-body" });
  const dom = el("div", { class: "component-block accordion-block" }, head, body);
  return blockView(node, dom, body, (n) => {
    current = n;
    setValue(input, labelOf(n));
    input.readOnly = !editor.isEditable;
  });
};

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/** The api badge: its label is "METHOD /path", edited as a method picker and a path field. */
const apiView: View = (node, editor, getPos) => {
  let current = node;
  const parts = () => {
    const label = labelOf(current);
    const m = /^([A-Za-z]+)\s+(.*)$/.exec(label);
    return { method: m ? m[1]!.toUpperCase() : "", path: m ? m[2]! : label };
  };
  const set = (method: string, path: string) => updateAttrs(editor, getPos, () => current, { type: cleanLabel(`${method} ${path}`.trim()) });
  const select = el("select", { "aria-label": "HTTP method" }) as HTMLSelectElement;
  const path = el("input", { "aria-label": "Endpoint path", class: "api-path" }) as HTMLInputElement;
  select.addEventListener("change", () => set(select.value, parts().path));
  path.addEventListener("input", () => set(parts().method, path.value));
  const head = el("div", { class: "component-part-head", contenteditable: "false" }, select, path);
  const body = el("div", { class: "component-body" });
  const dom = el("div", { class: "component-block api-block" }, head, body);
  return blockView(node, dom, body, (n) => {
    current = n;
    const { method, path: p } = parts();
    select.className = `api-method api-${method.toLowerCase()}`;
    setOptions(select, METHODS, method, method || "—");
    select.disabled = !editor.isEditable;
    setValue(path, p);
    path.readOnly = !editor.isEditable;
  });
};

const filetreeView: View = (node) => {
  const body = el("div", { class: "component-body" });
  const head = el("div", { class: "component-part-head", contenteditable: "false" }, el("span", { class: "component-kind" }, "File tree"));
  return blockView(node, el("div", { class: "component-block filetree-block" }, head, body), body, () => {});
};

const tocView: View = (node) => {
  const dom = el("div", { class: "component-block toc-block", contenteditable: "false" }, el("span", { class: "component-kind" }, "Table of contents"), " ", el("span", { class: "muted" }, "— built from the page's headings on the site"));
  return blockView(node, dom, null, () => {});
};

const componentAttributes = (colons: string) => ({
  type: { default: null, parseHTML: (el: HTMLElement) => el.getAttribute("data-type"), renderHTML: (a: Record<string, unknown>) => ({ "data-type": a.type }) },
  extra: { default: "", parseHTML: (el: HTMLElement) => el.getAttribute("data-extra") ?? "", renderHTML: (a: Record<string, unknown>) => ({ "data-extra": a.extra }) },
  colons: { default: colons, parseHTML: (el: HTMLElement) => el.getAttribute("data-colons") ?? colons, renderHTML: (a: Record<string, unknown>) => ({ "data-colons": a.colons }) },
});

function componentNode(name: string, content: string, view: View, colons: string, group?: string) {
  return Node.create({
    name,
    ...(group ? { group } : {}),
    content,
    defining: true,
    isolating: true,
    addAttributes: () => componentAttributes(colons),
    parseHTML: () => [{ tag: `div[data-component="${name}"]` }],
    renderHTML: ({ HTMLAttributes }) => ["div", mergeAttributes(HTMLAttributes, { "data-component": name }), 0],
    addNodeView: () => ({ node, editor, getPos }) => view(node, editor, getPos),
  });
}

export const Containers = [
  ...Object.entries(PARTS).flatMap(([name, { child }]) => [componentNode(name, `${child}+`, containerView, ":::", "block"), componentNode(child, "block+", partView, "::")]),
  componentNode("accordion", "block+", accordionView, ":::", "block"),
  componentNode("api", "block+", apiView, ":::", "block"),
  componentNode("filetree", "block+", filetreeView, ":::", "block"),
  Node.create({
    name: "toc",
    group: "block",
    atom: true,
    selectable: true,
    addAttributes: () => componentAttributes(":::"),
    parseHTML: () => [{ tag: 'div[data-component="toc"]' }],
    renderHTML: ({ HTMLAttributes }) => ["div", mergeAttributes(HTMLAttributes, { "data-component": "toc" })],
    addNodeView: () => ({ node, editor, getPos }) => tocView(node, editor, getPos),
  }),
];
