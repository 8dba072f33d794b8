/**
 * The callout component (`:::callout[type]` … `:::`) as a block: a type picker above a body edited
 * richly like the rest of the page. Attributes after the label (a title) are kept as written and
 * shown as text only, so nothing in them can run in the editor.
 */
import { Node, mergeAttributes, type Editor } from "@tiptap/core";
import type { Node as PMNodeType } from "@tiptap/pm/model";
import { blockView, el, setOptions, updateAttrs } from "./block-view.ts";

const TYPES = ["info", "warning", "danger", "tip", "note"];

function calloutView(node: PMNodeType, editor: Editor, getPos: () => number | undefined) {
  const select = el("select", { "aria-label": "Callout type" }) as HTMLSelectElement;
  const title = el("span", { class: "callout-title" });
  const head = el("div", { class: "callout-head", contenteditable: "false" }, select);
  const body = el("div", { class: "callout-body" });
  const dom = el("div", {}, head, body);
  let current = node;
  select.addEventListener("change", () => updateAttrs(editor, getPos, () => current, { type: select.value }));
  return blockView(node, dom, body, (n) => {
    current = n;
    const type = n.attrs.type === null ? "" : String(n.attrs.type);
    const known = TYPES.includes(type);
    dom.className = `callout-block callout-${known ? type : "other"}`;
    dom.dataset.calloutType = type;
    setOptions(select, TYPES, type, type || "callout");
    select.disabled = !editor.isEditable;
    const text = /\btitle="([^"]*)"/.exec(String(n.attrs.extra ?? ""))?.[1];
    title.textContent = text ?? "";
    if (text && title.parentNode !== head) head.append(title);
    else if (!text) title.remove();
  });
}

export const Callout = Node.create({
  name: "callout",
  group: "block",
  content: "block+",
  defining: true,
  isolating: true,
  addAttributes() {
    return {
      type: { default: "info", parseHTML: (el) => el.getAttribute("data-type"), renderHTML: (a) => ({ "data-type": a.type }) },
      extra: { default: "", parseHTML: (el) => el.getAttribute("data-extra") ?? "", renderHTML: (a) => ({ "data-extra": a.extra }) },
      colons: { default: ":::", parseHTML: (el) => el.getAttribute("data-colons") ?? ":::", renderHTML: (a) => ({ "data-colons": a.colons }) },
    };
  },
  parseHTML() {
    return [{ tag: "div[data-callout]" }];
  },
  renderHTML({ HTMLAttributes }) {
    return ["div", mergeAttributes(HTMLAttributes, { "data-callout": "" }), 0];
  },
  addNodeView() {
    return ({ node, editor, getPos }) => calloutView(node, editor, getPos);
  },
});
