/**
 * Markdown links as the editing surface draws them: an `<a>` with the link role and the address
 * in `data-href` (and as its tooltip), but no `href`. The schema's own rendering is unchanged, so
 * what is copied or dragged out of the editor still carries `href`, and the file is written from
 * the document, never from this DOM.
 *
 * Why no `href`: Chromium watches every http(s) link of a page for its navigation predictor, with
 * an intersection observer that, while the layout keeps changing (typing), asks for a frame about
 * every 100 ms. That frame draws nothing, but a key pressed just after it begins waits for its end:
 * up to one more frame on the key's latency, and ~1 ms of intersection work a key on a page of many
 * links (docs/decisions/editor-blocks.md, "Ninth pass"). A link in the editor is never followed by
 * a click while editing (the link popover has "Open"); a page opened read-only keeps real links.
 */
import Link from "@tiptap/extension-link";
import { DOMSerializer } from "@tiptap/pm/model";

export const EditingLink = Link.extend({
  addMarkView() {
    return ({ mark, view, inline }) => {
      // A page that is only read keeps real links: nothing is typed there, and a reader follows
      // them. The editor draws its marks again when it changes between the two (RichEditor.tsx).
      if (!view.editable) return DOMSerializer.renderSpec(document, mark.type.spec.toDOM!(mark, inline));
      const dom = document.createElement("a");
      const href = String(mark.attrs.href ?? "");
      dom.setAttribute("role", "link");
      dom.dataset.href = href;
      dom.title = mark.attrs.title ? String(mark.attrs.title) : href;
      return { dom };
    };
  },
});
