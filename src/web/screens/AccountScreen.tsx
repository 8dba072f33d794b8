/** Profile: who is signed in, their active sessions, and signing out on every device. */
import { useEffect, useState } from "react";
import { messageOf } from "../api/client.ts";
import type { Session } from "../api/types.ts";
import { changePassword, listSessions } from "../api/account.ts";
import { useAuth } from "../app/auth.tsx";
import { Field, Notice, Spinner } from "../ui/controls.tsx";
import { SignInMethods } from "./SignInMethods.tsx";
import { ConnectedApps } from "./ConnectedApps.tsx";

/** Proves the current password, sets a new one; every session ends, so this one signs in again. */
function ChangePassword({ email, onChanged }: { email: string; onChanged(): void }) {
  const { signIn } = useAuth();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; field?: string | undefined } | null>(null);
  const [done, setDone] = useState(false);
  return (
    <form
      className="settings-form"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        setDone(false);
        try {
          await changePassword(current, next);
          await signIn(email, next);
          setCurrent("");
          setNext("");
          setDone(true);
          onChanged();
        } catch (err) {
          const field = (err as { field?: string }).field;
          setError({ message: messageOf(err), field });
        } finally {
          setBusy(false);
        }
      }}
    >
      {done && <Notice kind="success">Password changed. Every other device has been signed out.</Notice>}
      {error && !error.field && <Notice kind="error">{error.message}</Notice>}
      <Field label="Current password" type="password" autoComplete="current-password" required value={current} onChange={(e) => setCurrent(e.target.value)} error={error?.field === "current_password" ? "This is not your current password." : undefined} />
      <Field label="New password" type="password" autoComplete="new-password" required value={next} onChange={(e) => setNext(e.target.value)} error={error?.field === "new_password" ? error.message : undefined} hint="At least 8 characters." />
      <button className="btn btn-primary" type="submit" disabled={busy}>
        {busy ? "Changing…" : "Change password"}
      </button>
    </form>
  );
}

export default function AccountScreen() {
  const { user, signOutEverywhere } = useAuth();
  const [sessions, setSessions] = useState<Session[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const loadSessions = () => listSessions().then((l) => setSessions(l.items), setError);
  useEffect(() => {
    void loadSessions();
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
      <SignInMethods />
      <ConnectedApps />
      {user?.has_password && (
        <>
          <h2>Change password</h2>
          <ChangePassword email={user.email} onChanged={() => void loadSessions()} />
        </>
      )}
      <h2>Sign out</h2>
      <button type="button" className="btn btn-danger" onClick={() => void signOutEverywhere()}>
        Sign out everywhere
      </button>
    </div>
  );
}
