import { z } from "zod";
import { lazyInput } from "../core/validate.ts";

/**
 * The shapes of git remote accepted for a workspace. Cloning comes later; this only makes sure
 * what is stored can be handed to git safely: no option injection (a leading "-"), no local
 * paths or exotic transports (file://, ext::), no whitespace or control characters.
 *
 * http:// is accepted beside https:// because self-hosted git servers on a private network (and
 * loopback test servers) often speak plain HTTP.
 */
export function gitRemoteProblem(url: string): string | null {
  if (url.length > 2048) return "must be at most 2048 characters";
  if (/[\s\u0000-\u001f\u007f]/.test(url)) return "must not contain spaces or control characters";
  if (url.startsWith("-")) return "must not start with '-'";
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    if (scheme !== "https" && scheme !== "http" && scheme !== "ssh") {
      return "must be an HTTPS or SSH git URL (https://…, ssh://… or user@host:path)";
    }
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return "is not a valid URL";
    }
    if (!parsed.hostname) return "must name a host";
    if (parsed.pathname === "" || parsed.pathname === "/") return "must name a repository path";
    if (parsed.search || parsed.hash) return "must not carry a query or fragment";
    return null;
  }
  // scp-like SSH form: user@host:path (a user is required so Windows drive paths never match)
  const scp = /^([A-Za-z0-9._~-]+)@([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):(.+)$/.exec(url);
  if (scp) {
    if (scp[3]!.startsWith("-")) return "must not have a path starting with '-'";
    return null;
  }
  return "must be an HTTPS or SSH git URL (https://…, ssh://… or user@host:path)";
}

export const gitRemote = lazyInput(() => z
  .string()
  .trim()
  .min(1, "must not be empty")
  .superRefine((url, ctx) => {
    const problem = gitRemoteProblem(url);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  }));

/** A branch name git accepts (the subset of check-ref-format rules that matter for a branch). */
export const gitBranch = lazyInput(() => z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(255, "must be at most 255 characters")
  .refine(
    (b) =>
      /^[A-Za-z0-9._\/-]+$/.test(b) &&
      !b.startsWith("-") &&
      !b.startsWith("/") &&
      !b.startsWith(".") &&
      !b.endsWith("/") &&
      !b.endsWith(".") &&
      !b.endsWith(".lock") &&
      !b.includes("..") &&
      !b.includes("//") &&
      !b.includes("/."),
    "must be a valid git branch name",
  ));
