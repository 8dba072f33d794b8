/** Sign-in, registration, forgotten and reset password: the screens a signed-out person sees. */
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from "react";
import { ApiError, api, messageOf } from "../api/client.ts";
import { bootData } from "../api/types.ts";
import { useAuth } from "../app/auth.tsx";
import { linkClick, navigate, useLocation } from "../app/router.ts";
import { Field, Notice } from "../ui/controls.tsx";
import { signInErrorMessage } from "../app/sign-in-errors.ts";
import { browserSupportsWebAuthn, cancelPasskeyCeremony, passkeyAutofill, passkeySignIn } from "../app/passkey-client.ts";
import { AUTH, oidcUrl } from "../api/auth.ts";

function AuthLayout({ title, children, footer }: { title: string; children: ReactNode; footer?: ReactNode }) {
  return (
    <main className="auth-page">
      <div className="auth-card">
        <div className="brand" aria-hidden="true">
          Quire
        </div>
        <h1>{title}</h1>
        {children}
        {footer && <div className="auth-footer">{footer}</div>}
      </div>
    </main>
  );
}

/** Keeps `next` only when it is a path inside the app, never another site. */
function safeNext(next: string | null): string {
  return next && next.startsWith("/") && !next.startsWith("//") ? next : "/";
}

function useForm() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; field?: string | undefined } | null>(null);
  const run = async (e: FormEvent, action: () => Promise<void>) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      setError({ message: messageOf(err), field: err instanceof ApiError ? err.field : undefined });
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run };
}

/**
 * Where a provider sign-in returns to inside the app. The provider sends the browser back to
 * /login, so `next` (a deep link, an AI app's consent screen) is kept in this tab's storage across
 * the round trip.
 */
const PROVIDER_NEXT = "quire.sign-in-next";

/** Signs in with a provider: the server answers the provider's URL, the browser goes there. */
async function startProvider(id: string, next: string | null): Promise<void> {
  const { url } = await api<{ url: string }>(oidcUrl(id), { method: "POST", json: {}, noRefresh: true });
  if (next) sessionStorage.setItem(PROVIDER_NEXT, safeNext(next));
  else sessionStorage.removeItem(PROVIDER_NEXT);
  location.assign(url);
}

export function LoginScreen() {
  const { signIn, adoptSession } = useAuth();
  const { query } = useLocation();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const { busy, error, run } = useForm();
  const [outside, setOutside] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  const boot = bootData();
  const signupEnabled = boot.signup_enabled;
  const passkeys = boot.passkeys && browserSupportsWebAuthn();
  const claimed = useRef(false);

  // Back from a provider: trade the one-time code for a session, or say what went wrong.
  useEffect(() => {
    const code = query.get("oidc_code");
    const failure = query.get("oidc_error");
    if (!code && !failure) return;
    // The code must not linger in the address bar or the history.
    history.replaceState(history.state, "", "/login");
    if (failure) {
      setOutside({ busy: false, error: signInErrorMessage(failure) });
      return;
    }
    if (claimed.current) return;
    claimed.current = true;
    setOutside({ busy: true, error: null });
    const next = sessionStorage.getItem(PROVIDER_NEXT);
    sessionStorage.removeItem(PROVIDER_NEXT);
    api<{ access_token: string }>(AUTH.oidcClaim, { method: "POST", json: { code }, noRefresh: true })
      .then((tokens) => adoptSession(tokens.access_token))
      .then(() => {
        if (next) navigate(safeNext(next), { replace: true });
      })
      .catch((err: unknown) => setOutside({ busy: false, error: messageOf(err) }));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // The browser's autofill offers this site's passkeys in the email field.
  useEffect(() => {
    if (!passkeys) return;
    let live = true;
    passkeyAutofill()
      .then((token) => {
        if (live && token) return adoptSession(token).then(() => navigate(safeNext(query.get("next")), { replace: true }));
      })
      .catch((err: unknown) => {
        if (live && !(err instanceof Error && (err.name === "AbortError" || err.name === "NotAllowedError"))) setOutside({ busy: false, error: messageOf(err) });
      });
    return () => {
      live = false;
      cancelPasskeyCeremony();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [passkeys]);

  const withPasskey = async () => {
    setOutside({ busy: true, error: null });
    try {
      const token = await passkeySignIn(email.trim() || undefined);
      await adoptSession(token);
      navigate(safeNext(query.get("next")), { replace: true });
    } catch (err) {
      const cancelled = err instanceof Error && err.name === "NotAllowedError";
      setOutside({ busy: false, error: cancelled ? "No passkey was chosen." : messageOf(err) });
    }
  };

  return (
    <AuthLayout
      title="Sign in"
      footer={
        signupEnabled ? (
          <>
            New here?{" "}
            <a href={query.get("next") ? `/register?next=${encodeURIComponent(safeNext(query.get("next")))}` : "/register"} onClick={linkClick}>
              Create an account
            </a>
          </>
        ) : (
          <>This instance is invite-only: ask an administrator for an invitation.</>
        )
      }
    >
      {query.get("reset") === "1" && <Notice kind="success">Your password has been changed. Sign in with the new one.</Notice>}
      {query.get("next") && !error && (
        <Notice>{query.get("next")!.startsWith("/p/") ? "This site is for members. Sign in to read it." : "Your session has ended. Sign in to continue where you were."}</Notice>
      )}
      {error && <Notice kind="error">{error.message}</Notice>}
      {outside.error && <Notice kind="error">{outside.error}</Notice>}
      <form
        onSubmit={(e) =>
          run(e, async () => {
            await signIn(email, password);
            navigate(safeNext(query.get("next")), { replace: true });
          })
        }
      >
        <Field label="Email" type="email" name="email" autoComplete={passkeys ? "username webauthn" : "username"} required value={email} onChange={(e) => setEmail(e.target.value)} autoFocus />
        <Field
          label="Password"
          type="password"
          name="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <button className="btn btn-primary btn-block" type="submit" disabled={busy || outside.busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
      {(passkeys || boot.providers.length > 0) && (
        <div className="auth-alternatives" role="group" aria-label="Other ways to sign in">
          {passkeys && (
            <button type="button" className="btn btn-block" disabled={outside.busy} onClick={() => void withPasskey()}>
              Sign in with a passkey
            </button>
          )}
          {boot.providers.map((p) => (
            <button
              key={p.id}
              type="button"
              className="btn btn-block"
              disabled={outside.busy}
              onClick={() => {
                setOutside({ busy: true, error: null });
                startProvider(p.id, query.get("next")).catch((err: unknown) => setOutside({ busy: false, error: messageOf(err) }));
              }}
            >
              Sign in with {p.name}
            </button>
          ))}
        </div>
      )}
      <p className="auth-aside">
        <a href="/forgot-password" onClick={linkClick}>
          Forgot your password?
        </a>
      </p>
    </AuthLayout>
  );
}

export function RegisterScreen() {
  const { register } = useAuth();
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [terms, setTerms] = useState(false);
  const { busy, error, run } = useForm();
  if (!bootData().signup_enabled) {
    return (
      <AuthLayout title="Sign-up is closed">
        <Notice>This instance is invite-only. Ask an administrator for an invitation link.</Notice>
        <p>
          <a href="/login" onClick={linkClick}>
            Back to sign in
          </a>
        </p>
      </AuthLayout>
    );
  }
  const fieldError = (f: string) => (error?.field === f ? error.message : undefined);
  return (
    <AuthLayout
      title="Create your account"
      footer={
        <>
          Already have an account?{" "}
          <a href="/login" onClick={linkClick}>
            Sign in
          </a>
        </>
      }
    >
      {error && !error.field && <Notice kind="error">{error.message}</Notice>}
      <form
        onSubmit={(e) =>
          run(e, async () => {
            await register({ name, email, password });
            navigate(safeNext(new URLSearchParams(location.search).get("next")), { replace: true });
          })
        }
      >
        <Field label="Name" name="name" autoComplete="name" required value={name} onChange={(e) => setName(e.target.value)} error={fieldError("name")} autoFocus />
        <Field label="Email" type="email" name="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} error={fieldError("email")} />
        <Field
          label="Password"
          type="password"
          name="password"
          autoComplete="new-password"
          required
          minLength={8}
          maxLength={1024}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={fieldError("password")}
          hint="At least 8 characters."
        />
        <div className="check">
          <input id="terms" type="checkbox" required checked={terms} onChange={(e) => setTerms(e.target.checked)} />
          <label htmlFor="terms">I accept the terms of use</label>
        </div>
        {fieldError("terms_accepted") && <Notice kind="error">{fieldError("terms_accepted")}</Notice>}
        <button className="btn btn-primary btn-block" type="submit" disabled={busy}>
          {busy ? "Creating account…" : "Create account"}
        </button>
      </form>
    </AuthLayout>
  );
}

export function ForgotPasswordScreen() {
  const [email, setEmail] = useState("");
  const [sent, setSent] = useState<string | null>(null);
  const { busy, error, run } = useForm();
  return (
    <AuthLayout
      title="Reset your password"
      footer={
        <a href="/login" onClick={linkClick}>
          Back to sign in
        </a>
      }
    >
      {sent ? (
        <Notice kind="success">
          {sent}
          {!bootData().email_enabled && " This instance sends no email: an administrator can create a reset link with `quire reset-password`."}
        </Notice>
      ) : (
        <>
          {error && <Notice kind="error">{error.message}</Notice>}
          <form
            onSubmit={(e) =>
              run(e, async () => {
                const r = await api<{ message: string }>(AUTH.forgotPassword, { method: "POST", json: { email }, noRefresh: true });
                setSent(r.message);
              })
            }
          >
            <Field label="Email" type="email" name="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} autoFocus />
            <button className="btn btn-primary btn-block" type="submit" disabled={busy}>
              {busy ? "Sending…" : "Send reset link"}
            </button>
          </form>
        </>
      )}
    </AuthLayout>
  );
}

export function ResetPasswordScreen() {
  const { query } = useLocation();
  const token = query.get("token") ?? "";
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const { busy, error, run } = useForm();
  const mismatch = confirm !== "" && confirm !== password;
  return (
    <AuthLayout title="Choose a new password">
      {!token && <Notice kind="error">This reset link is incomplete. Ask for a new one.</Notice>}
      {error && <Notice kind="error">{error.field === "token" ? "This reset link is invalid, used or expired. Ask for a new one." : error.message}</Notice>}
      <form
        onSubmit={(e) =>
          run(e, async () => {
            if (mismatch) throw new Error("The two passwords differ.");
            await api(AUTH.resetPassword, { method: "POST", json: { token, new_password: password }, noRefresh: true });
            navigate("/login?reset=1", { replace: true });
          })
        }
      >
        <Field label="New password" type="password" autoComplete="new-password" required minLength={8} value={password} onChange={(e) => setPassword(e.target.value)} hint="At least 8 characters." />
        <Field label="Repeat the new password" type="password" autoComplete="new-password" required value={confirm} onChange={(e) => setConfirm(e.target.value)} error={mismatch ? "The two passwords differ." : undefined} />
        <button className="btn btn-primary btn-block" type="submit" disabled={busy || !token}>
          {busy ? "Saving…" : "Set new password"}
        </button>
      </form>
      <p className="auth-aside">
        <a href="/forgot-password" onClick={linkClick}>
          Ask for a new link
        </a>
      </p>
    </AuthLayout>
  );
}
