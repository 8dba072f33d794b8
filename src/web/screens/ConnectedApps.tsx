/**
 * Connected apps (MCP authorization): each app the person let act as them, with its last use,
 * scopes and workspaces, and Revoke (its tokens stop at once). The organization's Super Admin also
 * sees every app connected to the organization's workspaces.
 */
import { useEffect, useState } from "react";
import { ApiError, messageOf } from "../api/client.ts";
import { listConnectedApps, listOrganizationApps, revokeConnectedApp, type ConnectedApp } from "../api/oauth.ts";
import { Notice, Spinner } from "../ui/controls.tsx";

function AppsTable({ apps, showPerson, onRevoke }: { apps: ConnectedApp[]; showPerson: boolean; onRevoke(app: ConnectedApp): void }) {
  if (apps.length === 0) return <p>No connected apps.</p>;
  return (
    <table className="table">
      <thead>
        <tr>
          <th scope="col">App</th>
          {showPerson && <th scope="col">Person</th>}
          <th scope="col">Scopes</th>
          <th scope="col">Workspaces</th>
          <th scope="col">Last used</th>
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {apps.map((a) => (
          <tr key={a.id} data-testid="connected-app">
            <td>
              {a.client_name} <span className="muted">({a.redirect_host})</span>
            </td>
            {showPerson && <td>{a.user.name || a.user.email}</td>}
            <td>{a.scopes.join(", ")}</td>
            <td>{a.workspaces.map((w) => w.name).join(", ")}</td>
            <td>{a.last_used_at ? new Date(a.last_used_at).toLocaleString() : "never"}</td>
            <td>
              <button type="button" className="btn btn-danger" onClick={() => onRevoke(a)}>
                Revoke
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ConnectedApps() {
  const [mine, setMine] = useState<ConnectedApp[] | null>(null);
  const [organization, setOrganization] = useState<ConnectedApp[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = () => {
    listConnectedApps().then((l) => setMine(l.items), setError);
    // Only the Super Admin is answered; anyone else simply has no organization list.
    listOrganizationApps().then(
      (l) => setOrganization(l.items),
      (err: unknown) => {
        if (!(err instanceof ApiError && err.status === 403)) setError(err);
      },
    );
  };
  useEffect(load, []);
  const revoke = async (app: ConnectedApp) => {
    if (!window.confirm(`Revoke ${app.client_name}? It stops working at once.`)) return;
    try {
      await revokeConnectedApp(app.id);
      load();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby="connected-apps">
      <h2 id="connected-apps">Connected apps</h2>
      {error ? <Notice kind="error">{messageOf(error)}</Notice> : null}
      {!mine ? <Spinner /> : <AppsTable apps={mine} showPerson={false} onRevoke={(a) => void revoke(a)} />}
      {organization && (
        <>
          <h3>In your organization</h3>
          <AppsTable apps={organization} showPerson onRevoke={(a) => void revoke(a)} />
        </>
      )}
    </section>
  );
}
