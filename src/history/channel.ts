/**
 * Where a version came from (the `channel` of docs/decisions/page-history.md), read from the commit message Quire wrote
 * (docs/architecture.md §6: `… via web editor|API|MCP`). A commit Quire did not write — a push from a clone,
 * an edit on disk — is `git`. A message is only text: a commit pushed from elsewhere can claim any
 * of these (the author stays whoever git says it is). See docs/decisions/page-history.md §3.
 */
type Channel = "web" | "api" | "mcp" | "git" | "restore" | "recovery" | "import";

export const CHANNELS: readonly Channel[] = ["web", "api", "mcp", "git", "restore", "recovery", "import"];

export function channelOf(message: string): Channel {
  const subject = message.split("\n", 1)[0]!.trim();
  if (/^Restore .+ via (web editor|API|MCP)$/.test(subject)) return "restore";
  if (/^Recover .+ via Quire$/.test(subject) || /^Commit .+\(auto-commit turned on\) via Quire$/.test(subject)) return "recovery";
  if (/^(Initial commit.*|Add page ids) via Quire$/.test(subject)) return "import";
  const via = / via (web editor|API|MCP)( \(conflict resolved\))?$/.exec(subject)?.[1];
  if (via === "web editor") return "web";
  if (via === "API") return "api";
  if (via === "MCP") return "mcp";
  if (subject.endsWith(" via Quire")) return "import";
  return "git";
}

/** The subject of the commit a restore makes (channelOf reads it back as `restore`). */
export function restoreMessage(path: string, commit: string, origin: string): string {
  return `Restore ${path} to version ${commit.slice(0, 12)} via ${origin}`;
}
