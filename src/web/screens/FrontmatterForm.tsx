/** The page's metadata (title, description, tags, publish), folded away until wanted. */
import type { LiveState } from "../app/site-live.ts";
import { useEffect, useState } from "react";
import { messageOf } from "../api/client.ts";
import type { Page } from "../api/types.ts";
import { Field, Notice } from "../ui/controls.tsx";

export interface FrontmatterPatch {
  title?: string;
  description?: string;
  tags?: string[];
  publish?: boolean;
}

export function FrontmatterForm(props: { page: Page; editable: boolean; live?: LiveState | null; save(patch: FrontmatterPatch): Promise<void> }) {
  const { page } = props;
  const [title, setTitle] = useState(page.title);
  const [description, setDescription] = useState(page.description ?? "");
  const [tags, setTags] = useState((page.tags ?? []).join(", "));
  const [publish, setPublish] = useState(!!page.publish);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ kind: "success" | "error"; text: string } | null>(null);
  useEffect(() => {
    setTitle(page.title);
    setDescription(page.description ?? "");
    setTags((page.tags ?? []).join(", "));
    setPublish(!!page.publish);
  }, [page.page_id, page.title, page.description, page.tags, page.publish]);
  return (
    <details className="frontmatter">
      <summary>Page settings</summary>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setMessage(null);
          try {
            const patch: FrontmatterPatch = {};
            if (title !== page.title) patch.title = title;
            if (description !== (page.description ?? "")) patch.description = description;
            const list = tags.split(",").map((t) => t.trim()).filter(Boolean);
            if (list.join(",") !== (page.tags ?? []).join(",")) patch.tags = list;
            if (publish !== !!page.publish) patch.publish = publish;
            if (Object.keys(patch).length > 0) await props.save(patch);
            setMessage({ kind: "success", text: "Page settings saved." });
          } catch (err) {
            setMessage({ kind: "error", text: messageOf(err) });
          } finally {
            setBusy(false);
          }
        }}
      >
        {message && <Notice kind={message.kind}>{message.text}</Notice>}
        <Field label="Title" value={title} onChange={(e) => setTitle(e.target.value)} disabled={!props.editable} required />
        <Field label="Description" value={description} onChange={(e) => setDescription(e.target.value)} disabled={!props.editable} />
        <Field label="Tags" value={tags} onChange={(e) => setTags(e.target.value)} disabled={!props.editable} hint="Separated by commas." />
        <div className="check">
          <input id="fm-publish" type="checkbox" checked={publish} onChange={(e) => setPublish(e.target.checked)} disabled={!props.editable} />
          <label htmlFor="fm-publish">Published on the documentation site</label>
          {props.live && (
            <span className="page-live hint" data-live={props.live.url ? "yes" : "no"}>
              {props.live.url ? (
                <>
                  Live at{" "}
                  <a href={props.live.url} target="_blank" rel="noopener">
                    {props.live.url}
                  </a>
                </>
              ) : page.publish && !props.live.sitePublished ? (
                "Not live: the workspace's site is switched off"
              ) : page.publish ? (
                "Not live: .quire/publish.yaml or a version leaves it out"
              ) : (
                "Not on the site"
              )}
            </span>
          )}
        </div>
        {props.editable && (
          <button className="btn" type="submit" disabled={busy}>
            {busy ? "Saving…" : "Save settings"}
          </button>
        )}
      </form>
    </details>
  );
}
