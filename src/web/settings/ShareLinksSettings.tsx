/** Share links: anyone signed in who opens one joins with its role (never admin), within its limits. */
import { useState } from "react";
import type { Workspace } from "../api/types.ts";
import { createShareLink, listShareLinks, revokeShareLink } from "../api/settings.ts";
import { Field, Notice } from "../ui/controls.tsx";
import { fmtDate, ListTable, roleLabel, SecretBox, useAction, useResource } from "./common.tsx";
import { RoleSelect, SHARE_LINK_ROLES } from "./RoleSelect.tsx";

export function ShareLinksSettings({ workspace }: { workspace: Workspace }) {
  const { data, error, reload } = useResource(workspace.id, () => listShareLinks(workspace.id));
  const [role, setRole] = useState("viewer");
  const [maxUses, setMaxUses] = useState("");
  const [days, setDays] = useState("7");
  const [created, setCreated] = useState<string | null>(null);
  const action = useAction();
  return (
    <>
      <form
        className="inline-form"
        onSubmit={async (e) => {
          e.preventDefault();
          setCreated(null);
          const body: Record<string, unknown> = { role };
          if (maxUses) body.max_uses = Number(maxUses);
          if (days) body.expires_at = new Date(Date.now() + Number(days) * 86_400_000).toISOString();
          const link = await action.run(() => createShareLink(workspace.id, body));
          if (link?.token) {
            setCreated(`${location.origin}/join/${link.token}`);
            await reload();
          }
        }}
      >
        <div className="field">
          <label htmlFor="sl-role">Role</label>
          <RoleSelect id="sl-role" value={role} onChange={setRole} roles={SHARE_LINK_ROLES} />
        </div>
        <Field label="Maximum uses" type="number" min={1} value={maxUses} onChange={(e) => setMaxUses(e.target.value)} placeholder="No limit" />
        <Field label="Expires after (days)" type="number" min={1} value={days} onChange={(e) => setDays(e.target.value)} placeholder="Never" />
        <button className="btn btn-primary" type="submit" disabled={action.busy}>
          {action.busy ? "Creating…" : "Create link"}
        </button>
      </form>
      {action.error && <Notice kind="error">{action.error}</Notice>}
      {created && <SecretBox label="Share link" value={created} note="Shown only now. Anyone signed in who opens it joins this workspace." />}
      <h3>Links</h3>
      <ListTable
        error={error}
        data={data}
        empty="No share links."
        columns={["Role", "Uses", "Expires", "State"]}
        row={(l) => (
          <>
            <td>
              {roleLabel[l.role] ?? l.role}
              {/* A page link opens one page (made in the tree's Share / access dialog). */}
              {l.path !== null && ` · page ${l.path}${l.anyone ? "" : " (people with access only)"}`}
            </td>
            <td>
              {l.uses}
              {l.max_uses !== null ? ` / ${l.max_uses}` : ""}
            </td>
            <td>{fmtDate(l.expires_at)}</td>
            <td>{l.active ? "Active" : "Used up or expired"}</td>
            <td>
              <button
                type="button"
                className="btn btn-small btn-danger"
                onClick={async () => {
                  await action.run(() => revokeShareLink(workspace.id, l.id));
                  await reload();
                }}
              >
                Delete
              </button>
            </td>
          </>
        )}
      />
    </>
  );
}
