/** Profile: who is signed in, their active sessions, and signing out on every device. */
import { useEffect, useState } from "react";
import { get, messageOf } from "../api/client.ts";
import type { List, Session } from "../api/types.ts";
import { useAuth } from "../app/auth.tsx";
import { Notice, Spinner } from "../ui/controls.tsx";

export default function AccountScreen() {
  const { user, signOutEverywhere } = useAuth();
  const [sessions, setSessions] = useState<Session[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    get<List<Session>>("/api/auth/sessions").then((l) => setSessions(l.items), setError);
  }, []);
  return (
    <div className="account">
      <h1>Profile</h1>
      <dl className="facts">
        <dt>Name</dt>
        <dd>{user?.name}</dd>
        <dt>Email</dt>
        <dd>{user?.email}</dd>
      </dl>
      <h2>Active sessions</h2>
      {error ? (
        <Notice kind="error">{messageOf(error)}</Notice>
      ) : !sessions ? (
        <Spinner />
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Device</th>
              <th scope="col">IP address</th>
              <th scope="col">Signed in</th>
              <th scope="col">Last active</th>
            </tr>
          </thead>
          <tbody>
            {sessions.map((s) => (
              <tr key={s.id}>
                <td>
                  {s.device || "Unknown device"} {s.current && <span className="badge">this device</span>}
                </td>
                <td>{s.ip}</td>
                <td>{new Date(s.created_at).toLocaleString()}</td>
                <td>{new Date(s.last_active_at).toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <button type="button" className="btn btn-danger" onClick={() => void signOutEverywhere()}>
        Sign out everywhere
      </button>
    </div>
  );
}
