/**
 * Images of the rich editor. Uploads are served by the API, which wants the access token that an
 * <img> cannot send, so those are fetched with it and shown from an object URL; the document (and
 * so the Markdown) keeps the real address.
 */
import Image from "@tiptap/extension-image";
import { objectUrlOf } from "../api/client.ts";

export const AuthImage = Image.extend({
  addNodeView() {
    return ({ node }) => {
      const img = document.createElement("img");
      const src = String(node.attrs.src ?? "");
      img.alt = String(node.attrs.alt ?? "");
      if (node.attrs.title) img.title = String(node.attrs.title);
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
