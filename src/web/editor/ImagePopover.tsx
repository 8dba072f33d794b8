/**
 * The control of a selected image: its alt text, edited in place (each change rewrites only the
 * image's alt text: src/web/markdown/image-html.ts for an `<img>` tag), and its address and width
 * as the file has them. Esc or Enter returns to the text with the image still selected.
 */
import { useEffect, useRef, useState } from "react";
import type { Editor } from "@tiptap/core";

export interface ImageAt {
  pos: number;
  src: string;
  alt: string;
  width: string | null;
  at: { left: number; top: number };
}

export function ImagePopover(props: { editor: Editor; image: ImageAt }) {
  const { editor, image } = props;
  const input = useRef<HTMLInputElement>(null);
  const [alt, setAlt] = useState(image.alt);
  useEffect(() => setAlt(image.alt), [image.pos, image.alt]);
  const storage = (editor.storage as unknown as { image: { focusControl?: (() => void) | null } }).image;
  useEffect(() => {
    storage.focusControl = () => input.current?.focus();
    return () => {
      storage.focusControl = null;
    };
  }, [storage]);
  return (
    <div className="page-picker link-popover image-popover" style={{ left: image.at.left, top: image.at.top }} role="group" aria-label="Image">
      <label>
        Alt text{" "}
        <input
          ref={input}
          value={alt}
          readOnly={!editor.isEditable}
          placeholder="What the image shows"
          onChange={(e) => {
            // One line: a line break would end the image's text.
            const next = e.target.value.replace(/[\r\n]/g, " ");
            setAlt(next);
            editor.chain().command(({ tr }) => (tr.setNodeAttribute(image.pos, "alt", next), true)).run();
          }}
          onKeyDown={(e) => {
            if (e.key === "Escape" || e.key === "Enter") {
              e.preventDefault();
              editor.chain().focus().setNodeSelection(image.pos).run();
            }
          }}
        />
      </label>
      <p className="muted image-popover-facts">
        {image.src}
        {image.width ? ` · width ${image.width}` : ""}
      </p>
    </div>
  );
}
