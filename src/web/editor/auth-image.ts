/**
 * Images of the rich editor. Uploads are served by the API, which wants the access token that an
 * <img> cannot send, so those are fetched with it and shown from an object URL; the document (and
 * so the Markdown) keeps the real address. An image the file wrote as an `<img>` tag keeps that
 * tag (`html`, src/web/markdown/image-html.ts) and is shown at its width.
 */
import Image from "@tiptap/extension-image";
import { NodeSelection } from "@tiptap/pm/state";
import { objectUrlOf } from "../api/client.ts";

export const AuthImage = Image.extend({
  addAttributes() {
    return { ...this.parent?.(), html: { default: null, rendered: false } };
  },
  // Set by the image's control (ImagePopover.tsx): Enter on a selected image moves into it.
  addStorage: () => ({ focusControl: null as (() => void) | null }),
  addKeyboardShortcuts() {
    return {
      Enter: () => {
        const sel = this.editor.state.selection;
        if (!(sel instanceof NodeSelection) || sel.node.type.name !== "image" || !this.storage.focusControl) return false;
        this.storage.focusControl();
        return true;
      },
    };
  },
  addNodeView() {
    return ({ node }) => {
      const img = document.createElement("img");
      const src = String(node.attrs.src ?? "");
      img.alt = String(node.attrs.alt ?? "");
      if (node.attrs.title) img.title = String(node.attrs.title);
      // The file's width and height, as attributes (never a style: the app's CSP).
      for (const name of ["width", "height"] as const) if (node.attrs[name] != null && /^\d+%?$/.test(String(node.attrs[name]))) img.setAttribute(name, String(node.attrs[name]));
      let objectUrl: string | null = null;
      if (src.startsWith("/api/")) {
        img.dataset.src = src;
        objectUrlOf(src).then(
          (url) => {
            objectUrl = url;
            img.src = url;
          },
          () => img.classList.add("image-missing"),
        );
      } else {
        img.src = src;
      }
      return {
        dom: img,
        destroy: () => {
          if (objectUrl) URL.revokeObjectURL(objectUrl);
        },
      };
    };
  },
});
