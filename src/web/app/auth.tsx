/**
 * The signed-in person. On boot the refresh cookie is traded for an access token (kept in memory
 * only); when a session cannot be renewed any more the app goes to the login screen and remembers
 * where the person was, so signing in brings them back there.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { announceSignedOut, api, del, onSessionExpired, post, refreshSession, setAccessToken } from "../api/client.ts";
import { listWorkspacesEarly } from "../api/workspaces.ts";
import type { User } from "../api/types.ts";
import { navigate } from "./router.ts";
import { AUTH } from "../api/auth.ts";

interface AuthState {
  status: "loading" | "signed-in" | "signed-out";
  user: User | null;
  signIn(email: string, password: string): Promise<void>;
  register(input: { name: string; email: string; password: string }): Promise<void>;
  signOutEverywhere(): Promise<void>;
  reloadUser(): Promise<void>;
  /** Signs in with an access token obtained elsewhere (an accepted invitation). */
  adoptSession(accessToken: string): Promise<void>;
}

const AuthContext = createContext<AuthState | null>(null);

export const PUBLIC_PATHS = ["/login", "/register", "/forgot-password", "/reset-password"];
/** Screens anyone may open, signed in or not (their token is in the path). */
export const isOpenPath = (path: string) => path.startsWith("/invite/") || path.startsWith("/shared/");

/**
 * Whether this browser signed in before. The refresh cookie is HttpOnly (invisible here), so
 * without this hint every signed-out visit would first make a refresh request bound to fail.
 */
const HINT = "quire.signed-in";
const hint = {
  get: () => localStorage.getItem(HINT) === "1",
  set: (on: boolean) => (on ? localStorage.setItem(HINT, "1") : localStorage.removeItem(HINT)),
};

let booting: Promise<boolean> | null = null;

/**
 * The session this page load starts with: the refresh cookie traded once, when this browser signed
 * in before. The entry starts it before React mounts (main.tsx), so the app's first reads follow
 * it at once; the provider takes the same answer.
 */
export function bootSession(): Promise<boolean> {
  booting ??= hint.get() ? refreshSession() : Promise.resolve(false);
  return booting;
}

export function loginUrlFor(here: string): string {
  return here === "/" || PUBLIC_PATHS.some((p) => here.startsWith(p)) ? "/login" : `/login?next=${encodeURIComponent(here)}`;
}

export function AuthProvider({ children }: { children: ReactNode }) {
  const [status, setStatus] = useState<AuthState["status"]>("loading");
  const [user, setUser] = useState<User | null>(null);

  const loadUser = useCallback(async (signingIn = false) => {
    // Signing in, the app's first screen needs the workspace list: it is read now, beside who this is.
    if (signingIn) listWorkspacesEarly();
    // The members' pass to published sites (an HttpOnly cookie for /p/), so a members-only site
    // opens in this browser without another sign-in. Best effort: the app works without it.
    const [me] = await Promise.all([api<{ user: User }>(AUTH.me), post(AUTH.siteSession).catch(() => {})]);
    setUser(me.user);
    setStatus("signed-in");
    hint.set(true);
  }, []);

  useEffect(() => {
    let cancelled = false;
    (async () => {
      if (await bootSession()) {
        try {
          if (!cancelled) await loadUser(true);
          return;
        } catch {
          /* fall through to signed-out */
        }
      }
      hint.set(false);
      if (!cancelled) setStatus("signed-out");
    })();
    return () => {
      cancelled = true;
    };
  }, [loadUser]);

  useEffect(
    () =>
      onSessionExpired(() => {
        setAccessToken(null);
        setUser(null);
        setStatus("signed-out");
        hint.set(false);
        // Several requests can fail together; the first one's redirect already remembers where
        // the person was, and a later one must not replace it with a bare /login.
        if (PUBLIC_PATHS.some((p) => location.pathname.startsWith(p))) return;
        navigate(loginUrlFor(location.pathname + location.search), { replace: true });
      }),
    [],
  );

  const value = useMemo<AuthState>(
    () => ({
      status,
      user,
      async signIn(email, password) {
        const tokens = await api<{ access_token: string }>(AUTH.login, {
          method: "POST",
          json: { email, password },
          noRefresh: true,
        });
        setAccessToken(tokens.access_token);
        await loadUser(true);
      },
      async register(input) {
        const res = await api<{ user: User; access_token?: string }>(AUTH.register, {
          method: "POST",
          json: { ...input, terms_accepted: true },
          noRefresh: true,
        });
        if (res.access_token) {
          setAccessToken(res.access_token);
          await loadUser(true);
        } else {
          // The account exists but the automatic sign-in did not happen: sign in normally.
          navigate("/login");
        }
      },
      async signOutEverywhere() {
        try {
          await del(AUTH.siteSession).catch(() => {});
          await post(AUTH.logout);
        } finally {
          announceSignedOut();
          hint.set(false);
          setAccessToken(null);
          setUser(null);
          setStatus("signed-out");
          navigate("/login", { replace: true });
        }
      },
      reloadUser: () => loadUser(),
      async adoptSession(token) {
        setAccessToken(token);
        await loadUser(true);
      },
    }),
    [status, user, loadUser],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthState {
  const ctx = useContext(AuthContext);
  if (!ctx) throw new Error("useAuth outside AuthProvider");
  return ctx;
}
