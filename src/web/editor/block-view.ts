/**
 * Node views for the component blocks, kept in plain DOM: a head of controls (pickers, title
 * fields, buttons) above a body ProseMirror edits. They were React node views; a 1,000-block page
 * holds a hundred and more of them, and a React root each made opening the page and every change
 * to a block slower (docs/decisions/editor-blocks.md, "Long pages").
 */
import type { Editor } from "@tiptap/core";
import type { Node as PMNodeType } from "@tiptap/pm/model";
import type { NodeView } from "@tiptap/pm/view";

/** An element with attributes and children; text is set as text, never parsed as markup. */
export function el(tag: string, attrs: Record<string, string> = {}, ...children: Array<Node | string>): HTMLElement {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

/** A `<select>`'s options: `extra` first when it is not one of `values` (a value written by hand). */
export function setOptions(select: HTMLSelectElement, values: string[], current: string, extraLabel: string): void {
  const wanted = values.includes(current) ? values : [current, ...values];
  const have = Array.from(select.options, (o) => o.value);
  if (have.length !== wanted.length || have.some((v, i) => v !== wanted[i])) {
    select.replaceChildren(...wanted.map((v) => el("option", { value: v }, v === current && !values.includes(v) ? extraLabel : v)));
  }
  if (select.value !== current) select.value = current;
}

/** An input's value, set only when it differs, so the caret of someone typing there stays put. */
export function setValue(input: HTMLInputElement, value: string): void {
  if (input.value !== value) input.value = value;
}

/** Sets attributes of the node a view shows (what a React node view's `updateAttributes` did). */
export function updateAttrs(editor: Editor, getPos: () => number | undefined, node: () => PMNodeType, attrs: Record<string, unknown>): void {
  editor.commands.command(({ tr }) => {
    const pos = getPos();
    if (typeof pos !== "number") return false;
    tr.setNodeMarkup(pos, undefined, { ...node().attrs, ...attrs });
    return true;
  });
}

/**
 * A block of controls around an editable body. `draw` renders the controls for a node (on creation
 * and on every update of the same type). Events in the controls stay theirs, and their DOM changes
 * are not read back as edits. Without a body it is one unit, drawn from its attributes: so are the
 * inline chips (badge, wikilink).
 */
export function blockView(node: PMNodeType, dom: HTMLElement, contentDOM: HTMLElement | null, draw: (node: PMNodeType) => void): NodeView {
  draw(node);
  const inBody = (target: EventTarget | Node | null) => !!contentDOM && target instanceof Node && contentDOM.contains(target);
  return {
    dom,
    contentDOM,
    update(next) {
      if (next.type !== node.type) return false;
      node = next;
      draw(next);
      return true;
    },
    // A block without a body (the table of contents) is one unit that ProseMirror selects.
    stopEvent: (event) => !!contentDOM && !inBody(event.target),
    ignoreMutation: (mutation) => !inBody(mutation.target),
  };
}
