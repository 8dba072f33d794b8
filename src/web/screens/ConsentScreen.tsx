/**
 * The consent screen of MCP authorization (`/oauth/consent?request=…`): an AI app asks to act as
 * the signed-in person. It shows the app's name, where it sends the person back to, the scopes it
 * asked for and the workspaces it would reach; the person may narrow both, then approve or deny.
 * The answer goes back to the server with the one-time consent token it issued for this view.
 */
import { useEffect, useState } from "react";
import { messageOf } from "../api/client.ts";
import { decideConsent, loadConsent, type OAuthConsent } from "../api/oauth.ts";
import { useLocation } from "../app/router.ts";
import { Notice, Spinner } from "../ui/controls.tsx";

const SCOPE_TEXT: Record<OAuthConsent["scopes"][number], string> = {
  read: "Read pages, search and list your workspaces",
  write: "Create and change pages",
  delete: "Delete pages",
  admin: "Everything your role allows, settings included",
};

export function ConsentScreen() {
  const { query } = useLocation();
  const requestId = query.get("request") ?? "";
  const [consent, setConsent] = useState<OAuthConsent | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [scopes, setScopes] = useState<Set<string>>(new Set());
  const [workspaces, setWorkspaces] = useState<Set<string>>(new Set());
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    document.title = "Connect an app · Quire";
    loadConsent(requestId).then((c) => {
      setConsent(c);
      setScopes(new Set(c.scopes));
      setWorkspaces(new Set(c.workspaces.map((w) => w.id)));
    }, setError);
  }, [requestId]);

  const toggle = (set: Set<string>, value: string, update: (s: Set<string>) => void) => {
    const next = new Set(set);
    if (next.has(value)) next.delete(value);
    else next.add(value);
    update(next);
  };

  const answer = async (approve: boolean) => {
    if (!consent) return;
    setBusy(true);
    setError(null);
    try {
      const { redirect_to } = await decideConsent(requestId, {
        consent_token: consent.consent_token,
        approve,
        scopes: consent.scopes.filter((s) => scopes.has(s)),
        workspace_ids: consent.workspaces.filter((w) => workspaces.has(w.id)).map((w) => w.id),
      });
      // Back to the app (its registered redirect URI, checked by the server).
      window.location.assign(redirect_to);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return (
    <main className="auth-page">
      <div className="auth-card consent">
        <div className="brand" aria-hidden="true">
          Quire
        </div>
        {!consent && !error && <Spinner />}
        {!consent && error ? <Notice kind="error">{messageOf(error)}</Notice> : null}
        {consent && (
          <>
            <h1>
              {consent.site === null ? (
                <>
                  Allow <strong data-testid="consent-client">{consent.client_name}</strong> to use Quire as you?
                </>
              ) : (
                <>
                  Allow <strong data-testid="consent-client">{consent.client_name}</strong> to read the site <strong data-testid="consent-site">{consent.site}</strong> as you?
                </>
              )}
            </h1>
            <p>
              After you answer you are sent back to <strong data-testid="consent-host">{consent.redirect_host}</strong>.
              {consent.metadata_document ? " The app identified itself by its published metadata." : " The app registered itself with this server."}
            </p>
            {error ? <Notice kind="error">{messageOf(error)}</Notice> : null}
            <fieldset>
              <legend>It may</legend>
              {consent.scopes.map((s) => (
                <label key={s} className="check">
                  <input type="checkbox" name="scope" value={s} checked={scopes.has(s)} onChange={() => toggle(scopes, s, setScopes)} /> {SCOPE_TEXT[s]} <code>{s}</code>
                </label>
              ))}
            </fieldset>
            <fieldset>
              <legend>In these workspaces</legend>
              {consent.workspaces.length === 0 && <p>You have no workspace to share.</p>}
              {consent.workspaces.map((w) => (
                <label key={w.id} className="check">
                  <input type="checkbox" name="workspace" value={w.id} checked={workspaces.has(w.id)} onChange={() => toggle(workspaces, w.id, setWorkspaces)} /> {w.name} <span className="badge">{w.role.replace("_", " ")}</span>
                </label>
              ))}
            </fieldset>
            <p className="auth-aside">It can never do more than your own role allows, and you can disconnect it any time under Profile → Connected apps.</p>
            <div className="actions">
              <button type="button" className="btn btn-primary" disabled={busy || scopes.size === 0 || workspaces.size === 0} onClick={() => void answer(true)}>
                Allow
              </button>
              <button type="button" className="btn" disabled={busy} onClick={() => void answer(false)}>
                Deny
              </button>
            </div>
          </>
        )}
      </div>
    </main>
  );
}
