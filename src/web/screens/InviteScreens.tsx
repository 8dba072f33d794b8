/**
 * Joining a workspace: `/invite/:token` accepts an invitation (a new account gives a name and a
 * password; an existing one its password), `/join/:token` uses a share link as the signed-in person.
 */
import { useEffect, useRef, useState } from "react";
import { api, messageOf } from "../api/client.ts";
import type { User } from "../api/types.ts";
import { useAuth } from "../app/auth.tsx";
import { linkClick, navigate } from "../app/router.ts";
import { Field, Notice, Spinner } from "../ui/controls.tsx";
import { useShareLink } from "../api/account.ts";
import { AUTH } from "../api/auth.ts";

interface Joined {
  workspace: { id: string; slug: string; name: string; role: string };
}

export function InviteAcceptScreen({ token }: { token: string }) {
  const { adoptSession, status, user } = useAuth();
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <main className="auth-page">
      <div className="auth-card">
        <div className="brand" aria-hidden="true">
          Quire
        </div>
        <h1>Accept the invitation</h1>
        <p className="muted">
          {status === "signed-in"
            ? `You are signed in as ${user?.email}. If the invitation is for that address, enter its password; otherwise sign out first.`
            : "New to Quire? Choose your name and a password. Already have an account for the invited address? Just enter its password."}
        </p>
        {error && <Notice kind="error">{error}</Notice>}
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            setBusy(true);
            setError(null);
            try {
              const res = await api<Joined & { user: User; access_token?: string }>(AUTH.invitationAccept, {
                method: "POST",
                json: { token, password, ...(name.trim() ? { name: name.trim() } : {}) },
                noRefresh: true,
              });
              if (res.access_token) await adoptSession(res.access_token);
              navigate(`/w/${encodeURIComponent(res.workspace.slug)}`, { replace: true });
            } catch (err) {
              setError(messageOf(err));
            } finally {
              setBusy(false);
            }
          }}
        >
          <Field label="Your name" autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} hint="Only needed for a new account." autoFocus />
          <Field label="Password" type="password" autoComplete="new-password" required value={password} onChange={(e) => setPassword(e.target.value)} hint="At least 8 characters for a new account." />
          <button className="btn btn-primary btn-block" type="submit" disabled={busy}>
            {busy ? "Joining…" : "Accept and join"}
          </button>
        </form>
        <div className="auth-footer">
          <a href="/login" onClick={linkClick}>
            Back to sign in
          </a>
        </div>
      </div>
    </main>
  );
}

export function JoinScreen({ token, onJoined }: { token: string; onJoined(): Promise<void> | void }) {
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);
  useEffect(() => {
    // Once per token, also under StrictMode's double effects: a link may have a single use.
    if (started.current) return;
    started.current = true;
    useShareLink(token).then(
      async (res) => {
        await onJoined();
        navigate(`/w/${encodeURIComponent(res.workspace.slug)}`, { replace: true });
      },
      (e) => setError(messageOf(e)),
    );
  }, [token, onJoined]);
  return error ? (
    <div className="empty">
      <h1>This link did not work</h1>
      <Notice kind="error">{error}</Notice>
    </div>
  ) : (
    <Spinner label="Joining the workspace" />
  );
}
