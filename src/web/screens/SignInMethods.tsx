/**
 * The profile's "Sign-in methods": the password (add one later, or remove it), each enabled
 * provider (link, unlink), each passkey (add, rename, delete). The server refuses to remove the
 * last method; its message is shown as it is.
 */
import { useCallback, useEffect, useState, type FormEvent } from "react";
import { messageOf } from "../api/client.ts";
import { useAuth } from "../app/auth.tsx";
import { useLocation } from "../app/router.ts";
import { signInErrorMessage } from "../app/sign-in-errors.ts";
import { browserSupportsWebAuthn, registerPasskey, type PasskeyRecord } from "../app/passkey-client.ts";
import { bootData } from "../api/types.ts";
import { Field, Notice, Spinner } from "../ui/controls.tsx";
import { addPassword, deletePasskey, linkProvider, listPasskeys, removePassword, renamePasskey, signInMethods, unlinkProvider } from "../api/auth.ts";

type Methods = Awaited<ReturnType<typeof signInMethods>>;

function PasskeyRow({ passkey, onChanged, onError }: { passkey: PasskeyRecord; onChanged(): void; onError(e: unknown): void }) {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(passkey.name);
  const save = async (e: FormEvent) => {
    e.preventDefault();
    try {
      await renamePasskey(passkey.id, name);
      setEditing(false);
      onChanged();
    } catch (err) {
      onError(err);
    }
  };
  return (
    <li>
      {editing ? (
        <form onSubmit={save} className="inline-form">
          <Field label={`New name for ${passkey.name}`} value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} autoFocus />
          <button type="submit" className="btn btn-primary">
            Save
          </button>
          <button type="button" className="btn" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <>
          <span className="method-name">{passkey.name}</span>
          <span className="method-detail">
            Added {new Date(passkey.created_at).toLocaleDateString()} · {passkey.last_used_at ? `last used ${new Date(passkey.last_used_at).toLocaleString()}` : "never used"}
          </span>
          <button type="button" className="btn" onClick={() => setEditing(true)} aria-label={`Rename ${passkey.name}`}>
            Rename
          </button>
          <button
            type="button"
            className="btn btn-danger"
            aria-label={`Delete ${passkey.name}`}
            onClick={() => {
              if (!window.confirm(`Delete the passkey "${passkey.name}"? It will no longer sign you in.`)) return;
              deletePasskey(passkey.id).then(onChanged, onError);
            }}
          >
            Delete
          </button>
        </>
      )}
    </li>
  );
}

function AddPassword({ onDone }: { onDone(): void }) {
  const [value, setValue] = useState("");
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      className="settings-form"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(null);
        try {
          await addPassword(value);
          setValue("");
          onDone();
        } catch (err) {
          setError(messageOf(err));
        }
      }}
    >
      <Field label="Add a password" type="password" autoComplete="new-password" required value={value} onChange={(e) => setValue(e.target.value)} error={error ?? undefined} hint="At least 8 characters." />
      <button className="btn btn-primary" type="submit">
        Add password
      </button>
    </form>
  );
}

export function SignInMethods() {
  const { reloadUser } = useAuth();
  const { query } = useLocation();
  const [methods, setMethods] = useState<Methods | null>(null);
  const [passkeys, setPasskeys] = useState<PasskeyRecord[]>([]);
  const [error, setError] = useState<string | null>(() => (query.get("oidc_error") ? signInErrorMessage(query.get("oidc_error")!) : null));
  const [notice, setNotice] = useState<string | null>(null);
  const passkeysOn = bootData().passkeys && browserSupportsWebAuthn();

  const load = useCallback(async () => {
    const [m, p] = await Promise.all([signInMethods(), passkeysOn ? listPasskeys<PasskeyRecord>() : Promise.resolve({ items: [] })]);
    setMethods(m);
    setPasskeys(p.items);
  }, [passkeysOn]);
  const fail = (err: unknown) => setError(messageOf(err));
  const changed = () => {
    setError(null);
    setNotice(null);
    load().catch(fail);
    void reloadUser();
  };

  useEffect(() => {
    const linked = query.get("linked");
    if (linked) setNotice(`${bootData().providers.find((p) => p.id === linked)?.name ?? linked} is linked: you can sign in with it.`);
    if (linked || query.get("oidc_error")) history.replaceState(history.state, "", "/account");
    load().catch(fail);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  if (!methods) return error ? <Notice kind="error">{error}</Notice> : <Spinner />;
  return (
    <section aria-labelledby="methods-heading">
      <h2 id="methods-heading">Sign-in methods</h2>
      {notice && <Notice kind="success">{notice}</Notice>}
      {error && <Notice kind="error">{error}</Notice>}
      <ul className="methods-list" aria-label="Sign-in methods">
        <li>
          <span className="method-name">Password</span>
          <span className="method-detail">{methods.password ? "Set" : "Not set"}</span>
          {methods.password && (
            <button
              type="button"
              className="btn"
              onClick={() => {
                if (window.confirm("Remove your password? You will sign in with your other methods.")) removePassword().then(changed, fail);
              }}
            >
              Remove password
            </button>
          )}
        </li>
        {methods.providers.map((p) => (
          <li key={p.id}>
            <span className="method-name">{p.name}</span>
            <span className="method-detail">{p.linked ? `Linked${p.email ? ` (${p.email})` : ""}` : "Not linked"}</span>
            {p.linked ? (
              <button type="button" className="btn" aria-label={`Unlink ${p.name}`} onClick={() => unlinkProvider(p.id).then(changed, fail)}>
                Unlink
              </button>
            ) : (
              <button
                type="button"
                className="btn"
                aria-label={`Link ${p.name}`}
                onClick={() => linkProvider(p.id).then((r) => location.assign(r.url), fail)}
              >
                Link
              </button>
            )}
          </li>
        ))}
      </ul>
      {!methods.password && <AddPassword onDone={changed} />}
      {passkeysOn && (
        <>
          <h3>Passkeys</h3>
          {passkeys.length === 0 ? <p className="muted">No passkeys yet.</p> : null}
          <ul className="methods-list" aria-label="Passkeys">
            {passkeys.map((p) => (
              <PasskeyRow key={p.id} passkey={p} onChanged={changed} onError={fail} />
            ))}
          </ul>
          <button
            type="button"
            className="btn btn-primary"
            onClick={() =>
              registerPasskey().then(
                (record) => {
                  changed();
                  setNotice(`Passkey "${record.name}" added.`);
                },
                (err: unknown) => setError(err instanceof Error && err.name === "NotAllowedError" ? "No passkey was created." : messageOf(err)),
              )
            }
          >
            Add a passkey
          </button>
        </>
      )}
    </section>
  );
}
