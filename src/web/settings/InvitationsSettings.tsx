/** Invite by email with a role; when the instance sends no email the link is shown to pass on. */
import { useState } from "react";
import { bootData, type Workspace } from "../api/types.ts";
import { invite, listInvitations, revokeInvitation, type Invitation } from "../api/settings.ts";
import { Field, Notice } from "../ui/controls.tsx";
import { fmtDate, ListTable, roleLabel, SecretBox, useAction, useResource } from "./common.tsx";
import { RoleSelect } from "./RoleSelect.tsx";

export function InvitationsSettings({ workspace }: { workspace: Workspace }) {
  const { data, error, reload } = useResource(workspace.id, () => listInvitations(workspace.id));
  const [email, setEmail] = useState("");
  const [role, setRole] = useState("editor");
  const [created, setCreated] = useState<Invitation | null>(null);
  const action = useAction();
  return (
    <>
      <form
        className="inline-form"
        onSubmit={async (e) => {
          e.preventDefault();
          setCreated(null);
          const inv = await action.run(() => invite(workspace.id, { email, role }));
          if (inv) {
            setCreated(inv);
            setEmail("");
            await reload();
          }
        }}
      >
        <Field label="Email address" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <div className="field">
          <label htmlFor="inv-role">Role</label>
          <RoleSelect id="inv-role" value={role} onChange={setRole} />
        </div>
        <button className="btn btn-primary" type="submit" disabled={action.busy}>
          {action.busy ? "Inviting…" : "Invite"}
        </button>
      </form>
      {action.error && <Notice kind="error">{action.error}</Notice>}
      {created &&
        (created.url ? (
          <SecretBox label={`Invitation link for ${created.email}`} value={created.url} note="This instance sends no email: pass this link on yourself. It is shown only now." />
        ) : (
          <Notice kind="success">Invitation sent to {created.email}.</Notice>
        ))}
      {!bootData().email_enabled && !created && <p className="hint">No email is configured: after inviting, you get a link to pass on.</p>}
      <h3>Pending invitations</h3>
      <ListTable
        error={error}
        data={data}
        empty="No pending invitations."
        columns={["Email", "Role", "Expires"]}
        row={(i) => (
          <>
            <td>{i.email}</td>
            <td>{roleLabel[i.role] ?? i.role}</td>
            <td>{fmtDate(i.expires_at)}</td>
            <td>
              <button
                type="button"
                className="btn btn-small btn-danger"
                aria-label={`Revoke the invitation of ${i.email}`}
                onClick={async () => {
                  await action.run(() => revokeInvitation(workspace.id, i.id));
                  await reload();
                }}
              >
                Revoke
              </button>
            </td>
          </>
        )}
      />
    </>
  );
}
