/**
 * Members of the workspace: change a role, remove someone (admins; the API keeps the last admin),
 * and each one's access to the restricted folders and pages (docs/decisions/restricted-folders.md).
 */
import type { Workspace } from "../api/types.ts";
import { peopleAccess } from "../api/access.ts";
import { listMembers, removeMember, setMemberRole } from "../api/settings.ts";
import { useAuth } from "../app/auth.tsx";
import { Notice } from "../ui/controls.tsx";
import { fmtDate, ListTable, useAction, useResource } from "./common.tsx";
import { RoleSelect } from "./RoleSelect.tsx";

export function MembersSettings({ workspace }: { workspace: Workspace }) {
  const { user } = useAuth();
  const { data, error, reload } = useResource(workspace.id, () => listMembers(workspace.id));
  const restricted = useResource(workspace.id, () => peopleAccess(workspace.id));
  const access = new Map((restricted.data?.items ?? []).map((p) => [p.user_id, p.restricted]));
  const action = useAction();
  return (
    <>
      {action.error && <Notice kind="error">{action.error}</Notice>}
      <ListTable
        error={error}
        data={data}
        loading="Loading members"
        empty="No members."
        columns={["Name", "Email", "Role", "Restricted folders", "Joined"]}
        rowKey={(m) => m.user_id}
        row={(m) => (
          <>
            <td>
              {m.name} {m.user_id === user?.id && <span className="badge">you</span>}
            </td>
            <td>{m.email}</td>
            <td>
              <RoleSelect
                label={`Role of ${m.name}`}
                value={m.role}
                disabled={action.busy}
                onChange={async (role) => {
                  await action.run(() => setMemberRole(workspace.id, m.user_id, role));
                  await reload();
                }}
              />
            </td>
            <td className="restricted-access">
              {(access.get(m.user_id) ?? []).length === 0
                ? "—"
                : access.get(m.user_id)!.map((r) => (
                    <span key={r.path} className={`badge${r.level === null ? " badge-muted" : ""}`}>
                      {r.path}: {r.level ?? "no access"}
                    </span>
                  ))}
            </td>
            <td>{fmtDate(m.joined_at)}</td>
            <td>
              <button
                type="button"
                className="btn btn-small btn-danger"
                disabled={action.busy}
                aria-label={`Remove ${m.name}`}
                onClick={async () => {
                  if (!window.confirm(`Remove ${m.name} from ${workspace.name}?`)) return;
                  await action.run(() => removeMember(workspace.id, m.user_id));
                  await reload();
                }}
              >
                Remove
              </button>
            </td>
          </>
        )}
      />
    </>
  );
}
