/** Members of the workspace: change a role, remove someone (admins; the API keeps the last admin). */
import { del, put } from "../api/client.ts";
import type { List, Workspace } from "../api/types.ts";
import { useAuth } from "../app/auth.tsx";
import { Notice } from "../ui/controls.tsx";
import { fmtDate, ListTable, useAction, useResource } from "./common.tsx";
import { RoleSelect } from "./RoleSelect.tsx";
import { workspaceUrls } from "../api/workspaces.ts";

interface Member {
  user_id: string;
  name: string;
  email: string;
  role: string;
  joined_at: string;
}

export function MembersSettings({ workspace }: { workspace: Workspace }) {
  const { user } = useAuth();
  const base = workspaceUrls(workspace.id).members;
  const { data, error, reload } = useResource<List<Member>>(`${base}?limit=100`);
  const action = useAction();
  return (
    <>
      {action.error && <Notice kind="error">{action.error}</Notice>}
      <ListTable
        error={error}
        data={data}
        loading="Loading members"
        empty="No members."
        columns={["Name", "Email", "Role", "Joined"]}
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
                  await action.run(() => put(`${base}/${m.user_id}/role`, { role }));
                  await reload();
                }}
              />
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
                  await action.run(() => del(`${base}/${m.user_id}`));
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
