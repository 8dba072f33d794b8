/** Members of the workspace: change a role, remove someone (admins; the API keeps the last admin). */
import { del, put } from "../api/client.ts";
import type { List, Workspace } from "../api/types.ts";
import { useAuth } from "../app/auth.tsx";
import { Notice, Spinner } from "../ui/controls.tsx";
import { fmtDate, roleLabel, useAction, useResource } from "./common.tsx";

interface Member {
  user_id: string;
  name: string;
  email: string;
  role: string;
  joined_at: string;
}

const ROLES = ["viewer", "commenter", "editor", "admin"];

export function MembersSettings({ workspace }: { workspace: Workspace }) {
  const { user } = useAuth();
  const base = `/api/v1/workspaces/${workspace.id}/admin/members`;
  const { data, error, reload } = useResource<List<Member>>(`${base}?limit=100`);
  const action = useAction();
  if (error) return <Notice kind="error">{String((error as Error).message)}</Notice>;
  if (!data) return <Spinner label="Loading members" />;
  return (
    <>
      {action.error && <Notice kind="error">{action.error}</Notice>}
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Joined</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {data.items.map((m) => (
            <tr key={m.user_id}>
              <td>
                {m.name} {m.user_id === user?.id && <span className="badge">you</span>}
              </td>
              <td>{m.email}</td>
              <td>
                <select
                  aria-label={`Role of ${m.name}`}
                  value={m.role}
                  disabled={action.busy}
                  onChange={async (e) => {
                    const role = e.target.value;
                    await action.run(() => put(`${base}/${m.user_id}/role`, { role }));
                    await reload();
                  }}
                >
                  {ROLES.map((r) => (
                    <option key={r} value={r}>
                      {roleLabel[r]}
                    </option>
                  ))}
                </select>
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
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
