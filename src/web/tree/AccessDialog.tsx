/** "Share / access" for one folder or page of the tree (admins, and editors the workspace lets manage access): its access list, edited and saved. */
import { useEffect, useState } from "react";
import { messageOf } from "../api/client.ts";
import type { TreeNode } from "../api/types.ts";
import { Dialog, Notice } from "../ui/controls.tsx";
import { effectiveAccess, membersAccess, setAccess, type AccessEntry, type EffectiveAccess, type MemberAccess } from "../api/access.ts";
import { createPageLink, pageLinkUrl } from "../api/shared-pages.ts";

const LEVELS: AccessEntry["level"][] = ["view", "comment", "edit"];

/** The entry that lets page share links open for anyone (docs/decisions/restricted-folders.md, "Share links"). */
const LINK_ANYONE = "link:anyone";
type LinkLevel = "view" | "comment";
const linkOf = (entries: AccessEntry[]): LinkLevel | null => (entries.find((e) => e.who === LINK_ANYONE)?.level as LinkLevel | undefined) ?? null;
const membersOf = (entries: AccessEntry[]) => entries.filter((e) => e.who !== LINK_ANYONE).map((x) => ({ ...x }));

/** The rule's key: a folder ends with `/`, a page is its file path. */
const accessPathOf = (node: TreeNode) => (node.kind === "folder" ? `${node.path}/` : node.path);

export function AccessDialog(props: { slug: string; admin: boolean; node: TreeNode | null; onClose(): void }) {
  const { node } = props;
  const path = node ? accessPathOf(node) : null;
  const [current, setCurrent] = useState<EffectiveAccess | null>(null);
  const [entries, setEntries] = useState<AccessEntry[]>([]);
  // Kept apart from the members' entries: only admins change it, and an editor's save carries it as it was.
  const [link, setLink] = useState<LinkLevel | null>(null);
  const [confirmed, setConfirmed] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const [people, setPeople] = useState<MemberAccess | null>(null);
  const [pageLink, setPageLink] = useState<{ url: string; anyone: boolean } | null>(null);
  // What a new page link lets its holder do; a comment link comments only where the allowance is `comment` too.
  const [linkRole, setLinkRole] = useState<"viewer" | "commenter">("viewer");

  useEffect(() => {
    setError(null);
    setSaved(false);
    setCurrent(null);
    setPageLink(null);
    if (!path) return;
    let live = true;
    membersAccess(props.slug, path).then((m) => live && setPeople(m), () => undefined);
    effectiveAccess(props.slug, path).then(
      (e) => {
        if (!live) return;
        setCurrent(e);
        // A folder's own list is edited here; one inherited from above starts as a copy to narrow.
        setEntries(membersOf(e.entries));
        setLink(linkOf(e.entries));
      },
      (err) => live && setError(err),
    );
    return () => {
      live = false;
    };
  }, [path, props.slug]);

  const save = async (list: AccessEntry[]) => {
    if (!path) return;
    setBusy(true);
    setError(null);
    setSaved(false);
    try {
      const full = list.length === 0 ? [] : [...list.filter((e) => e.who.trim() !== ""), ...(link ? [{ who: LINK_ANYONE, level: link }] : [])];
      const next = await setAccess(props.slug, path, full, confirmed);
      setCurrent(next);
      setEntries(membersOf(next.entries));
      setLink(linkOf(next.entries));
      setSaved(true);
      setPeople(await membersAccess(props.slug, path));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const makeLink = async () => {
    if (!path) return;
    setError(null);
    try {
      const link = await createPageLink(props.slug, path, linkRole);
      setPageLink({ url: pageLinkUrl(link.token), anyone: link.anyone === true });
    } catch (err) {
      setError(err);
    }
  };

  const inherited = current?.restricted && current.from !== path;
  return (
    <Dialog open={node !== null} title={`Share / access: ${path ?? ""}`} onClose={() => !busy && props.onClose()}>
      {error !== null && <Notice kind="error">{messageOf(error)}</Notice>}
      {saved && <Notice kind="success">Access saved.</Notice>}
      {current && (
        <p className="access-state">
          {current.restricted ? (inherited ? `Restricted, from ${current.from}` : "Restricted") : "Not restricted: every member has access by their role."} Admins always have full access.
        </p>
      )}
      <table className="access-entries">
        <thead>
          <tr>
            <th scope="col">Who (email, group:admins, group:editors, group:everyone)</th>
            <th scope="col">Level</th>
            <th scope="col">
              <span className="visually-hidden">Remove</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e, i) => (
            <tr key={i}>
              <td>
                <input
                  aria-label={`Who, entry ${i + 1}`}
                  value={e.who}
                  onChange={(ev) => setEntries(entries.map((x, j) => (j === i ? { ...x, who: ev.target.value } : x)))}
                />
              </td>
              <td>
                <select
                  aria-label={`Level, entry ${i + 1}`}
                  value={e.level}
                  onChange={(ev) => setEntries(entries.map((x, j) => (j === i ? { ...x, level: ev.target.value as AccessEntry["level"] } : x)))}
                >
                  {LEVELS.map((l) => (
                    <option key={l} value={l}>
                      {l}
                    </option>
                  ))}
                </select>
              </td>
              <td>
                <button type="button" className="btn" onClick={() => setEntries(entries.filter((_, j) => j !== i))}>
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" className="btn" onClick={() => setEntries([...entries, { who: "", level: "view" }])}>
        Add someone
      </button>
      {people && (
        <ul className="access-people" aria-label="Effective access per member">
          {people.items.map((p) => (
            <li key={p.user_id}>
              {p.name || p.email}: {p.level ?? "no access"}
              {people.from && p.level !== null && p.role !== "admin" && p.role !== "super_admin" ? `, from ${people.from}` : ""}
            </li>
          ))}
        </ul>
      )}
      {props.admin && (
        <fieldset className="access-link">
          <legend>Share links</legend>
          <label>
            <input type="checkbox" checked={link !== null} onChange={(ev) => setLink(ev.target.checked ? "view" : null)} /> Anyone with a share link may open pages here
          </label>
          {link !== null && (
            <select aria-label="Share link level" value={link} onChange={(ev) => setLink(ev.target.value as LinkLevel)}>
              <option value="view">view</option>
              <option value="comment">comment</option>
            </select>
          )}
          <p className="muted">
            {link !== null
              ? "Anyone holding a share link to a page here then reads it, signed in or not, without being on this list. Turning this off stops those links at once."
              : "Share links to pages here work only for people with access."}
          </p>
          {node?.kind === "page" && (
            <div className="access-link-create">
              <select aria-label="New share link lets its holder" value={linkRole} onChange={(ev) => setLinkRole(ev.target.value as "viewer" | "commenter")}>
                <option value="viewer">read</option>
                <option value="commenter">read and comment (signed in)</option>
              </select>
              <button type="button" className="btn" onClick={() => void makeLink()}>
                Create a share link to this page
              </button>
            </div>
          )}
          {pageLink && (
            <>
              <input aria-label="Share link to this page" readOnly value={pageLink.url} onFocus={(ev) => ev.target.select()} />
              <Notice kind={pageLink.anyone ? "info" : "warning"}>
                {pageLink.anyone
                  ? "Anyone holding this link reads the page. Revoke it in Settings → Share links."
                  : "This link works only for people with access to this page (it opens as a missing page for anyone else), unless anyone with a share link is allowed here."}
              </Notice>
            </>
          )}
        </fieldset>
      )}
      <Notice kind="warning">Rights in Quire do not extend to the git remote: anyone who can clone it reads every page.</Notice>
      <label className="access-confirm">
        <input type="checkbox" checked={confirmed} onChange={(ev) => setConfirmed(ev.target.checked)} /> This workspace's git remote, if it has one, is private
      </label>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={props.onClose} disabled={busy}>
          Close
        </button>
        {current?.restricted && !inherited && (
          <button type="button" className="btn btn-danger" disabled={busy} onClick={() => void save([])}>
            Lift restriction
          </button>
        )}
        <button type="button" className="btn btn-primary" disabled={busy || (entries.every((e) => e.who.trim() === "") && link === null)} onClick={() => void save(entries)}>
          {busy ? "Saving…" : "Save access"}
        </button>
      </div>
    </Dialog>
  );
}
