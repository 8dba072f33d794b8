import { useEffect } from "react";
import { PUBLIC_PATHS, isOpenPath, loginUrlFor, useAuth } from "./auth.tsx";
import { navigate, useLocation } from "./router.ts";
import { ForgotPasswordScreen, LoginScreen, RegisterScreen, ResetPasswordScreen } from "../screens/AuthScreens.tsx";
import { Shell } from "../screens/Shell.tsx";
import { InviteAcceptScreen } from "../screens/InviteScreens.tsx";
import { ConsentScreen } from "../screens/ConsentScreen.tsx";
import { SharedPageScreen } from "../screens/SharedPageScreen.tsx";
import { Spinner } from "../ui/controls.tsx";

/** Chooses the screen: sign-in screens for signed-out people, the shell for everyone else. */
export function App() {
  const { status } = useAuth();
  const { path, href, query } = useLocation();
  const nextParam = query.get("next");
  const isPublic = PUBLIC_PATHS.some((p) => path === p) || isOpenPath(path);

  useEffect(() => {
    if (status === "signed-out" && !isPublic) navigate(loginUrlFor(href), { replace: true });
    // Signed-in people have no business on the sign-in forms (the reset link still works).
    // (A new account made from a share link or deep link goes on to it: `next` is an in-app path only.)
    if (status === "signed-in" && (path === "/login" || path === "/register")) {
      navigate(nextParam && nextParam.startsWith("/") && !nextParam.startsWith("//") ? nextParam : "/", { replace: true });
    }
  }, [status, isPublic, path, href, nextParam]);

  useEffect(() => {
    const titles: Record<string, string> = {
      "/login": "Sign in",
      "/register": "Create account",
      "/forgot-password": "Reset password",
      "/reset-password": "New password",
    };
    if (path.startsWith("/invite/")) titles[path] = "Invitation";
    document.title = titles[path] ? `${titles[path]} · Quire` : "Quire";
  }, [path]);

  if (status === "loading") return <Spinner label="Starting" />;
  if (path === "/reset-password") return <ResetPasswordScreen />;
  if (path === "/forgot-password") return <ForgotPasswordScreen />;
  if (path.startsWith("/invite/")) return <InviteAcceptScreen token={decodeURIComponent(path.slice("/invite/".length))} />;
  // A page share link opens for whoever holds it, signed in or not.
  if (path.startsWith("/shared/")) return <SharedPageScreen token={decodeURIComponent(path.slice("/shared/".length))} />;
  if (status === "signed-out") {
    if (path === "/register") return <RegisterScreen />;
    return <LoginScreen />;
  }
  if (path === "/login" || path === "/register") return <Spinner />;
  // An AI app waiting for the person's consent: a page of its own, outside the workspace shell.
  if (path === "/oauth/consent") return <ConsentScreen />;
  return <Shell />;
}
