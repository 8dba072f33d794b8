/**
 * Writes docs/interfaces.md: Quire's outside interfaces (HTTP, CLI, MCP, events, errors, limits),
 * generated from the definitions the running product uses — the OpenAPI document served at
 * /api/openapi.json, the citty command definitions, the MCP server's tool list, the error classes
 * and their HTTP statuses, the rate-limit rules and the constants behind the other limits — so the
 * document cannot drift from the code. The prose between the tables is written here.
 *
 *   bun run docs:interfaces          rewrite docs/interfaces.md
 *
 * test/docs/interfaces.test.ts builds the same text in memory and fails when the committed file
 * differs. The output is deterministic: no clock, no version, no machine-dependent value.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CommandDef } from "citty";
import { apiDocument } from "../src/http/routes/openapi.ts";
import { HTTP_STATUS } from "../src/http/error-response.ts";
import * as errors from "../src/core/errors.ts";
import { ERROR_CODES, type ErrorCode } from "../src/core/errors.ts";
import { RATE_RULES, ANONYMOUS_FLOOR } from "../src/core/rate-limit.ts";
import { MAX_BODY_BYTES } from "../src/core/net/body-limit.ts";
import { root } from "../src/cli.ts";
import { allTools, toolInput } from "../src/mcp/server.ts";
import { MAX_RESULT_TOKENS } from "../src/mcp/budget.ts";
import { ACCESS_TOKEN_TTL_SEC, WS_TOKEN_TTL_SEC } from "../src/identity/access-tokens.ts";
import { REFRESH_TTL_MS, REFRESH_GRACE_MS } from "../src/identity/sessions.ts";
import { PASSWORD_MIN, PASSWORD_MAX, ARGON2_DEFAULTS } from "../src/identity/passwords.ts";
import { RESET_TTL_MS } from "../src/identity/password-resets.ts";
import { FLOW_TTL_MS, CLAIM_TTL_MS } from "../src/identity/oidc-service.ts";
import { CHALLENGE_TTL_MS } from "../src/identity/passkeys.ts";
import { INVITATION_TTL_MS } from "../src/access/invitations.ts";
import { MAX_UPLOAD_BYTES } from "../src/content/uploads.ts";
import { MAX_PAGE_CHARS, DEFAULT_READ_CHARS } from "../src/content/schemas.ts";
import { MAX_PATH_LENGTH } from "../src/content/paths.ts";
import { SOFT_DELETE_KEEP_MS } from "../src/content/page-records.ts";
import { STOP_WAIT_MS } from "../src/ops/stop-instance.ts";
import { DOWNLOAD_TTL_MS } from "../src/publish/export/export-service.ts";
import { LLMS_FULL_MAX_PAGES } from "../src/publish/site/feeds.ts";
import { MAX_ASSIST_CHARS } from "../src/ai/schemas.ts";
import { DEFAULT_PRESENCE_TIMINGS } from "../src/realtime/presence.ts";
import { MAX_CLIENT_FRAME_BYTES } from "../src/realtime/messages.ts";
import { clientMessage } from "../src/realtime/schemas.ts";
import { WEBHOOK_EVENTS } from "../src/webhooks/schemas.ts";

export const INTERFACES_DOC = "docs/interfaces.md";
const ROOT = join(import.meta.dir, "..");

type Json = Record<string, unknown>;

// ---------------------------------------------------------------- helpers

/** A table cell: no pipes or line breaks inside. */
const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");
const table = (head: string[], rows: string[][]) =>
  [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`)].join("\n");
const bytes = (n: number) => (n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MB` : `${n} bytes`);
const duration = (ms: number) =>
  ms % 86_400_000 === 0 && ms > 86_400_000 ? plural(ms / 86_400_000, "day") : ms % 3_600_000 === 0 ? plural(ms / 3_600_000, "hour") : ms % 60_000 === 0 ? plural(ms / 60_000, "minute") : plural(ms / 1000, "second");
const plural = (n: number, unit: string) => `${n.toLocaleString("en-US")} ${unit}${n === 1 ? "" : "s"}`;
const num = (n: number) => n.toLocaleString("en-US");
/** Plain code-point order, so the output does not depend on the machine's locale. */
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A JSON Schema as a short type: `string`, `integer 1–100`, `"a" \| "b"`, `array of string`, a component's name. */
function typeOf(schema: Json | undefined): string {
  if (!schema) return "any";
  if (typeof schema.$ref === "string") return schema.$ref.split("/").pop()!;
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  if ("const" in schema) return JSON.stringify(schema.const);
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = schema[key];
    if (Array.isArray(options)) return [...new Set(options.map((o) => typeOf(o as Json)))].join(" | ");
  }
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : (schema.type as string | undefined);
  if (type === "array") return `array of ${typeOf(schema.items as Json | undefined)}`;
  if (type === "integer" || type === "number") {
    const min = schema.minimum ?? schema.exclusiveMinimum;
    const max = schema.maximum ?? schema.exclusiveMaximum;
    const safe = (v: unknown) => typeof v === "number" && Math.abs(v) < Number.MAX_SAFE_INTEGER;
    if (safe(min) && safe(max)) return `${type} ${num(min as number)}–${num(max as number)}`;
    if (safe(min)) return `${type} ≥ ${num(min as number)}`;
    if (safe(max)) return `${type} ≤ ${num(max as number)}`;
    return type;
  }
  if (type === "string") {
    if (schema.format) return `string (${schema.format})`;
    if (typeof schema.maxLength === "number") return `string ≤ ${num(schema.maxLength)}`;
    return "string";
  }
  if (type === "object" || schema.properties) return "object";
  return type ?? "any";
}

/** An object schema's fields as `name?: type (default)` fragments. */
function fields(schema: Json): string[] {
  const props = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries(props).map(([name, p]) => {
    const dflt = p.default !== undefined ? ` (default ${JSON.stringify(p.default)})` : "";
    return `\`${name}${required.has(name) ? "" : "?"}\` ${typeOf(p)}${dflt}`;
  });
}

// ---------------------------------------------------------------- 3. HTTP

/** Tags in the order the document shows them (a new tag goes last, by name). */
const TAG_ORDER = ["infrastructure", "auth", "api-keys", "content", "workspaces", "search", "members", "collab", "git", "quality", "export", "sites", "ai", "analytics", "webhooks", "onboarding", "billing", "gdpr"];
const METHOD_ORDER = ["get", "post", "put", "patch", "delete"];

function httpSection(doc: Json): string {
  const paths = doc.paths as Record<string, Record<string, Json>>;
  const byTag = new Map<string, string[][]>();
  const ops: Array<{ tag: string; path: string; method: string; op: Json }> = [];
  for (const [path, methods] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(methods)) ops.push({ tag: (op.tags as string[])[0]!, path, method, op });
  }
  const tagRank = (t: string) => (TAG_ORDER.includes(t) ? TAG_ORDER.indexOf(t) : TAG_ORDER.length);
  ops.sort((a, b) => tagRank(a.tag) - tagRank(b.tag) || byText(a.tag, b.tag) || byText(a.path, b.path) || METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method));
  for (const { tag, path, method, op } of ops) {
    const codes = Object.keys(op.responses as Json).sort();
    const success = codes.filter((c) => c < "400").map((c) => `**${c}**`);
    const failures = codes.filter((c) => c >= "400");
    const auth = (op.security as unknown[]).length > 0 ? "bearer" : "none";
    const body = (op.requestBody as { content: Record<string, { schema: Json }> } | undefined)?.content;
    const media = body ? Object.keys(body)[0]! : undefined;
    const input = body && media === "application/json" ? fields(body[media]!.schema) : media ? [`(${media})`] : [];
    const query = ((op.parameters as Json[]) ?? []).filter((p) => p.in === "query").map((p) => `\`${p.name as string}${p.required ? "" : "?"}\``);
    const row = [
      method.toUpperCase(),
      `\`${path}\``,
      auth,
      op.summary as string,
      [query.length ? `query ${query.join(", ")}` : "", input.length ? `body ${input.join(", ")}` : ""].filter(Boolean).join("; ") || "—",
      [...success, ...failures].join(" "),
    ];
    (byTag.get(tag) ?? byTag.set(tag, []).get(tag)!).push(row);
  }
  const parts = [...byTag].map(([tag, rows]) => `### ${tag}\n\n${table(["Method", "Path", "Auth", "Summary", "Input", "Statuses"], rows)}`);
  return parts.join("\n\n");
}

// ---------------------------------------------------------------- 4. CLI

async function cliSection(): Promise<string> {
  const subCommands = root.subCommands as Record<string, () => Promise<CommandDef<any>>>;
  const out: string[] = [];
  for (const name of Object.keys(subCommands).sort(byText)) {
    const command = await subCommands[name]!();
    const meta = command.meta as { description?: string };
    const args = (command.args ?? {}) as Record<string, { type: string; alias?: string | string[]; required?: boolean; default?: unknown; valueHint?: string; description?: string }>;
    const rows = Object.entries(args).map(([arg, a]) => {
      const aliases = [a.alias ?? []].flat().map((x) => `-${x}`);
      const flag = a.type === "positional" ? `<${arg}>` : a.type === "boolean" && a.default === true ? `--no-${arg}` : `--${arg}${a.type === "string" ? ` <${a.valueHint ?? "value"}>` : ""}`;
      const dflt = a.default !== undefined && !(a.type === "boolean" && a.default === true) ? String(a.default) : "";
      return [[`\`${flag}\``, ...aliases.map((x) => `\`${x}\``)].join(", "), a.required ? "yes" : "", dflt, a.description ?? ""];
    });
    out.push(`### quire ${name}\n\n${meta.description ?? ""}\n\n${rows.length ? table(["Option", "Required", "Default", "Meaning"], rows) : "No options."}`);
  }
  return out.join("\n\n");
}

// ---------------------------------------------------------------- 5. MCP

function annotationsOf(a: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean }): string {
  return [a.readOnlyHint ? "read-only" : "writes", a.destructiveHint ? "destructive" : "", a.idempotentHint ? "idempotent" : "", a.openWorldHint ? "open-world" : ""].filter(Boolean).join(", ");
}

const jsonInput = (tool: Parameters<typeof toolInput>[0]) =>
  (toolInput(tool) as unknown as { "~standard": { jsonSchema: { input(o: { target: string }): Json } } })["~standard"].jsonSchema.input({ target: "draft-2020-12" });

function mcpSection(): string {
  const http = allTools("http", false);
  const stdio = new Map(allTools("stdio", false).map((t) => [t.name, t]));
  const out: string[] = [
    table(
      ["Tool", "Title", "Scope", "Annotations"],
      http.map((t) => [`[\`${t.name}\`](#${t.name})`, t.title, t.scope, annotationsOf(t.annotations)]),
    ),
  ];
  for (const tool of http) {
    const input = fields(jsonInput(tool));
    const other = stdio.get(tool.name);
    const stdioOnly = other ? fields(jsonInput(other)).filter((f) => !input.includes(f)) : [];
    out.push(
      [
        `### ${tool.name}`,
        "",
        `**${tool.title}** — ${tool.description}`,
        "",
        `Input: ${input.length ? input.join(", ") : "none"}.` + (stdioOnly.length ? ` Over stdio also: ${stdioOnly.join(", ")}.` : ""),
      ].join("\n"),
    );
  }
  return out.join("\n\n");
}

// ---------------------------------------------------------------- 6. Events

/** Every event type the server fans out to a workspace's sockets: payload fields and when. */
const EVENTS: Record<string, [payload: string, when: string]> = {
  "page-created": ["workspace_id, path, actor", "a page is created (editor, API, MCP, git pull, reconcile)"],
  "page-updated": ["workspace_id, path, actor", "a page's file changes (body or frontmatter; also each page whose links a move rewrote)"],
  "page-deleted": ["workspace_id, path, actor", "a page is deleted (soft delete)"],
  "page-moved": ["workspace_id, old_path, new_path, actor", "a page is moved or renamed"],
  "presence-join": ["workspace_id, user_id", "a person's first connection to the workspace opens"],
  "presence-leave": ["workspace_id, user_id", "a person's last connection closes or stays silent past the presence timeout"],
  "sync-status": ["workspace_id, status", "the workspace's git sync status changes"],
  "conflict-detected": ["workspace_id, path", "a pull finds a page changed on both sides"],
  "bulk-sync": ["workspace_id, changed_count, paths, actor?, reason?", "several files changed at once (a pull, a reconcile, a reorder)"],
  "comment-added": ["workspace_id, comment_id, parent_id, page_path, resolved, actor", "a comment or reply is added"],
  "comment-updated": ["workspace_id, comment_id, parent_id, page_path, resolved, actor", "a comment is edited, resolved or reopened"],
  "comment-deleted": ["workspace_id, comment_id, parent_id, page_path, resolved, actor", "a comment is deleted"],
  "page-viewing": ["workspace_id, user_id, path (null: none)", "a person opens or leaves a page"],
};

/** The members of `export type EventType` in src/core/event-bus.ts, read from its source. */
export function eventTypesInCode(): string[] {
  const source = readFileSync(join(ROOT, "src/core/event-bus.ts"), "utf8").replace(/\/\/.*$/gm, "");
  const block = /(?:export )?type EventType =([\s\S]*?);/.exec(source)?.[1];
  if (!block) throw new Error("src/core/event-bus.ts: no `type EventType` union");
  return [...block.matchAll(/\|\s*"([a-z-]+)"/g)].map((m) => m[1]!);
}

function eventsSection(): string {
  const inCode = eventTypesInCode();
  const missing = inCode.filter((t) => !(t in EVENTS));
  const stale = Object.keys(EVENTS).filter((t) => !inCode.includes(t));
  if (missing.length || stale.length) {
    throw new Error(`scripts/interfaces-doc.ts EVENTS differs from src/core/event-bus.ts: missing ${missing.join(", ") || "none"}; not in the code ${stale.join(", ") || "none"}`);
  }
  const clientTypes = clientMessage.unwrap().options.map((o) => o.shape.type.value);
  return [
    `Connect to \`GET /ws\` after \`POST /api/auth/ws-token\` has set the \`quire_ws_token\` cookie (valid ${duration(WS_TOKEN_TTL_SEC * 1000)}). Every frame is one JSON text frame \`{"type", "payload", "ts"}\` (\`ts\` ISO 8601). On connecting the server sends \`hello\` (\`user_id\`, \`workspaces\`, \`heartbeat_ms\`, \`presence_timeout_ms\`) and subscribes the connection to every workspace the person can read. A client may send ${clientTypes.map((t) => `\`${t}\``).join(", ")} (\`subscribe\`/\`unsubscribe\` carry \`workspace_id\`); the server answers \`pong\`, \`subscribed\` (\`workspace_id\`, \`present\`) and \`unsubscribed\`. Anything else, or a frame over ${num(MAX_CLIENT_FRAME_BYTES)} bytes, gets an \`error\` frame (\`error\`, \`message\`), never a close. Presence: heartbeats every ${duration(DEFAULT_PRESENCE_TIMINGS.heartbeatMs)}, leave after ${duration(DEFAULT_PRESENCE_TIMINGS.timeoutMs)} of silence.`,
    "",
    "Workspace events (payload fields; `actor` is the acting user's id, or the git or system actor):",
    "",
    table(["Type", "Payload", "Sent when"], inCode.map((t) => [`\`${t}\``, EVENTS[t]![0], EVENTS[t]![1]])),
    "",
    `Outbound webhooks can subscribe to ${WEBHOOK_EVENTS.map((e) => `\`${e}\``).join(", ")}; their definitions are kept, but delivery is not active (the delivery log is always empty).`,
  ].join("\n");
}

// ---------------------------------------------------------------- 7. Errors

const MEANING: Record<ErrorCode, string> = {
  VALIDATION_ERROR: "invalid body, query or path parameter (a bad page path, a missing title, malformed JSON); `details.field` names the field when there is one",
  UNAUTHORIZED: "missing or invalid credentials; a wrong password, an unknown email and a locked account get the same answer",
  FORBIDDEN: "signed in, but the role or the key's scopes do not allow it",
  PLAN_LIMIT_REACHED: "Cloud: a plan limit is reached (e.g. every seat taken when inviting an editor or admin)",
  PLAN_LIMIT: "Cloud: the plan does not include the feature (analytics on Free)",
  SIGNUP_DISABLED: "registration, or a first external sign-in, while invite-only mode is on",
  NOT_FOUND: "no such resource, or no right to know it exists; every Cloud-only route in the Community edition",
  CONFLICT: "the path is taken, or `lastKnownHash` is stale (the body adds `current_hash`, `your_hash`, `modified_by`, `modified_at`)",
  PAYLOAD_TOO_LARGE: `the request body is over ${bytes(MAX_BODY_BYTES)}, or a page or upload over its own limit`,
  RATE_LIMITED: "too many requests; `X-RateLimit-*` and `Retry-After` headers say when to retry",
  INTERNAL_ERROR: "a failure on the server; the body names nothing internal, the `request_id` finds it in the log",
  SERVICE_UNAVAILABLE: "an outside service the route needs (the payment provider) is not set up or refused, or the data directory is read-only (nothing was saved)",
  INSUFFICIENT_STORAGE: "the data directory's disk is full or over quota; nothing was saved, an administrator has to free space",
};

function errorClasses(): Map<string, string> {
  const byCode = new Map<string, string>();
  for (const [name, value] of Object.entries(errors)) {
    if (typeof value !== "function" || !(value.prototype instanceof errors.AppError)) continue;
    const instance = new (value as unknown as new (...a: unknown[]) => errors.AppError)("x", undefined, undefined);
    if (byCode.has(instance.code)) throw new Error(`src/core/errors.ts: two classes for ${instance.code}`);
    byCode.set(instance.code, name);
  }
  return byCode;
}

function errorsSection(): string {
  const classes = errorClasses();
  const rows = ERROR_CODES.map((code) => {
    const klass = classes.get(code);
    if (!klass) throw new Error(`src/core/errors.ts: no class for ${code}`);
    return [String(HTTP_STATUS[code]), `\`${code}\``, `\`${klass}\``, MEANING[code]];
  });
  return [
    "Every error answer, whatever went wrong (an unknown route, malformed JSON, an oversized body, an unexpected exception), is JSON of one shape: `error` (the machine code), `message` (for people), optional `details`, and `request_id` (also sent as `X-Request-Id`). A 500 never carries a stack trace or a file path.",
    "",
    "Each machine code has one error class in `src/core/errors.ts`; services throw them and each transport maps them in one place: HTTP in `src/http/error-response.ts` (the status below), MCP in `src/mcp/errors.ts` (an `isError` result whose text carries the same code and fields), the CLI in `src/commands/exit.ts` (a message on stderr and exit code 1; 2 for a configuration or usage error), the WebSocket in `src/realtime/messages.ts` (an `error` frame).",
    "",
    table(["HTTP", "Code", "Class", "Meaning"], rows),
  ].join("\n");
}

// ---------------------------------------------------------------- 8. Limits

const RULE_SCOPE: Record<string, string> = {
  register: "`POST /api/auth/register`",
  password_reset: "`POST /api/auth/forgot-password`, `POST /api/auth/reset-password`",
  auth: "credential and token endpoints under `/api/auth/` (not the reads of one's own account, nor a proven session's renewals), and `DELETE /api/v1/users/me`",
  oauth_register: "`POST /oauth/register` (MCP clients' dynamic registration)",
  oauth: "`GET /oauth/authorize` (it may fetch a client's metadata document), `POST /oauth/token`, `POST /oauth/revoke`",
  session_use: "`POST /api/auth/refresh` with a cookie naming a stored refresh token, `POST /api/auth/ws-token` with a session token (uses of a session, not guesses)",
  content_read: "reads under `/api/v1/content/`",
  content_write: "writes under `/api/v1/content/`",
  search: "`GET /api/v1/workspaces/:id/search`",
  ai_assist: "`POST /api/ai/assist` (each call costs a model completion)",
  git_webhook: "`POST /api/git/webhook/:workspace_id`",
  published: "published sites (`/p/…`) and `POST /api/analytics/consent`",
  data_export: "`GET /api/v1/users/me/export` (only an export that was made counts)",
  org_export: "`GET /api/v1/orgs/:handle/export` (only an export that was made counts)",
  anonymous: "every request without a verified caller, on every path but `/api/health`, the app's static files and published sites (credentials that do not verify count everywhere)",
};

const KEYED: Record<string, string> = {
  ip: "client IP",
  user: "account when signed in, else IP",
  caller: "organization (API keys share one bucket; each person has their own), else IP",
};

function limitsSection(): string {
  const window = (s: number) => (s === 60 ? "minute" : s === 3600 ? "hour" : s === 86400 ? "24 hours" : s % 60 === 0 ? `${s / 60} minutes` : `${s} s`);
  const rows = [...RATE_RULES, ANONYMOUS_FLOOR].map((r) => {
    const scope = RULE_SCOPE[r.name];
    if (!scope) throw new Error(`scripts/interfaces-doc.ts: rate rule "${r.name}" has no description in RULE_SCOPE`);
    return [`\`${r.name}\``, `${num(r.limit)} per ${window(r.windowSec)}`, KEYED[r.keyBy] ?? r.keyBy, scope];
  });
  const other: string[][] = [
    ["Request body", bytes(MAX_BODY_BYTES), "413 `PAYLOAD_TOO_LARGE` beyond it"],
    ["Upload", bytes(MAX_UPLOAD_BYTES), "per file"],
    ["Page", `${num(MAX_PAGE_CHARS)} characters`, "a page's Markdown"],
    ["Page path", `${num(MAX_PATH_LENGTH)} characters`, ""],
    ["MCP page read", `${num(DEFAULT_READ_CHARS)} characters by default`, "`max_chars` and `offset` page through longer pages"],
    ["MCP tool result", `about ${num(MAX_RESULT_TOKENS)} tokens`, "longer results are cut and say how to continue"],
    ["Writing assist text", `${num(MAX_ASSIST_CHARS)} characters`, ""],
    ["Access token", duration(ACCESS_TOKEN_TTL_SEC * 1000), "RS256 JWT; fixed"],
    ["Refresh token", duration(REFRESH_TTL_MS), `rotated on use; a rotated token presented again within ${duration(REFRESH_GRACE_MS)} gets the same successor, later it revokes every session`],
    ["WebSocket cookie", duration(WS_TOKEN_TTL_SEC * 1000), ""],
    ["Password", `${num(PASSWORD_MIN)} to ${num(PASSWORD_MAX)} characters`, "no character-class rules"],
    ["Login lockout", "5 failures, 900 s", "`QUIRE_LOGIN_LOCK_THRESHOLD`, `QUIRE_LOGIN_LOCK_DURATION_SEC`"],
    ["Password reset link", duration(RESET_TTL_MS), "single use"],
    ["External sign-in flow / claim code", `${duration(FLOW_TTL_MS)} / ${duration(CLAIM_TTL_MS)}`, "single use"],
    ["Passkey challenge", duration(CHALLENGE_TTL_MS), "single use"],
    ["Invitation", duration(INVITATION_TTL_MS), ""],
    ["Deleted page", `recoverable for ${duration(SOFT_DELETE_KEEP_MS)}`, ""],
    ["Export download link", duration(DOWNLOAD_TTL_MS), ""],
    ["llms-full.txt", `${num(LLMS_FULL_MAX_PAGES)} pages`, ""],
    ["Presence timeout", duration(DEFAULT_PRESENCE_TIMINGS.timeoutMs), ""],
    ["`quire stop` wait", duration(STOP_WAIT_MS), "then `--force` may kill a verified instance"],
  ];
  return [
    "Rate limits (src/core/rate-limit.ts). Authenticated requests count per organization, anonymous ones per IP; behind a reverse proxy `TRUST_PROXY` takes the client address from `X-Forwarded-For`. A request may meet several rules; each counts. Answers carry `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` (Unix seconds) and, on 429, `Retry-After`; a published site's answer that shared caches may store (`Cache-Control: public`) carries neither these nor `X-Request-Id` (docs/decisions/site-caching.md). Why the buckets are keyed this way: docs/decisions/rate-limits.md.",
    "",
    table(["Rule", "Allowance", "Counted per", "Applies to"], rows),
    "",
    "Other limits:",
    "",
    table(["What", "Limit", "Note"], other),
  ].join("\n");
}

// ---------------------------------------------------------------- 9. Records

function recordsSection(doc: Json): string {
  const schemas = (doc.components as { schemas: Record<string, Json> }).schemas;
  return Object.keys(schemas)
    .sort(byText)
    .map((name) => {
      const schema = schemas[name]!;
      const list = schema.type === "object" && schema.properties ? fields(schema).join(", ") : typeOf(schema);
      return `- **${name}**: ${list}`;
    })
    .join("\n");
}

// ---------------------------------------------------------------- the document

export async function interfacesDoc(): Promise<string> {
  const doc = apiDocument({ version: "v0.0.0", baseUrl: "http://localhost:3000" });
  const apiKeyScopes = table(
    ["Scope", "Allows"],
    [
      ["read", "GET, HEAD, OPTIONS"],
      ["write", "POST, PUT, PATCH (and read)"],
      ["delete", "DELETE (and read)"],
      ["admin", "every method"],
      ["admin:read", "read-only platform-owner access (e.g. `/metrics`)"],
    ],
  );
  return `<!-- Generated by scripts/interfaces-doc.ts from the code; do not edit by hand. Regenerate: bun run docs:interfaces -->
# Quire's interfaces

What a client of Quire can rely on: the HTTP API, the command line, the MCP tools, the live events,
the errors and the limits. Every table below is generated from the definitions the product itself
runs on (the OpenAPI document, the citty commands, the MCP tool list, the error classes, the
rate-limit rules), so it says what the code does; test/docs/interfaces.test.ts fails when this file
falls behind. How the pieces fit together: docs/architecture.md. Why things are as they are:
docs/decisions/.

## 1. Conventions

- Business endpoints live under \`/api/v1/\`; infrastructure (auth, health, readiness, the git
  webhook, AI, analytics consent, the payment provider's webhook, this document) under the
  unversioned \`/api/\`. The OpenAPI 3.1 document of every \`/api\` route is served at
  \`GET /api/openapi.json\`.
- Bodies are JSON unless a route says otherwise. Field names are snake_case; a page update also
  accepts \`lastKnownHash\` beside \`last_known_hash\`. Timestamps are ISO 8601 UTC strings except
  where a field says Unix seconds (an API key's \`expires_at\`). Identifiers are ULIDs.
- Pages are addressed by workspace slug and file path (\`/api/v1/content/{workspace}/{path}\`); a
  page also has a \`page_id\` that survives moves. \`content_hash\` is \`sha256:\` and the hex SHA-256
  of the whole file; an update sends the hash it last saw and gets 409 \`CONFLICT\` when the file
  changed since. Safe upsert for scripts: POST; on 409 read, then PUT with the hash.
- Lists are \`{"items": [...], "next_cursor": "..." | null}\`; pass \`next_cursor\` back as \`cursor\`
  (with \`limit\`) for the next page.
- Brand-free names of the interface are filled in as: executable \`quire\`, API keys \`quire_live_…\`,
  environment \`QUIRE_*\` (\`QUIRE_API_KEY\`, \`QUIRE_DISABLE_SIGNUP\`, …), MCP tools \`quire_*\`.

## 2. Authentication

- \`Authorization: Bearer <access token or API key>\` on every route not marked \`none\` below.
- Email and password: argon2id (${ARGON2_DEFAULTS.memoryKiB / 1024} MiB, ${ARGON2_DEFAULTS.iterations} passes,
  parallelism ${ARGON2_DEFAULTS.parallelism}; \`ARGON2_MEMORY\`, \`ARGON2_TIME\`, \`ARGON2_THREADS\` tune it).
  Sign-in failures, unknown emails and locked accounts all get the same 401. \`QUIRE_DISABLE_SIGNUP=true\` turns on invite-only mode: registration and a first
  external sign-in answer 403 \`SIGNUP_DISABLED\`; accepting an invitation and joining through a
  share link still work.
- External sign-in: \`google\` (any OpenID Connect issuer) and \`github\`, each enabled when its
  client id and secret are set. The callback URL to register with the provider is
  \`{BASE_URL}/api/auth/oidc/<provider>/callback\`; the callback redirects to the app with a
  one-time claim code that \`POST /api/auth/oidc/claim\` trades for the token pair.
- Passkeys (WebAuthn) when \`WEBAUTHN_RP_ID\`, \`WEBAUTHN_RP_DISPLAY_NAME\` and \`WEBAUTHN_RP_ORIGINS\`
  are set.
- Tokens: login, refresh, passkey and external sign-in answer the token pair (\`access_token\`,
  \`refresh_token\`, \`expires_in\`); the refresh token is also set as the HttpOnly, SameSite=Strict
  \`quire_refresh\` cookie. Logout revokes every session of the person; so do a password reset and
  the reuse of a rotated refresh token. Deleting the signing key (\`JWT_KEY_PATH\`, default
  \`{DATA_DIR}/jwt-private.pem\`) and restarting ends every session.
- API keys: the secret starts with \`quire_live_\`, is shown once, and is stored only as an HMAC
  with the pepper (\`API_KEY_PEPPER\`). A key belongs to a person in an organization (optionally one
  workspace); what it may do is its scopes intersected with its owner's role. Default scopes
  \`read\`, \`write\`, \`delete\`.

${apiKeyScopes}

- Roles in a workspace: viewer < commenter < editor < admin; the organization's Super Admin
  creates and deletes workspaces and passes every workspace check (docs/architecture.md §7).
- Inbound git webhooks carry the provider's proof: GitHub \`X-Hub-Signature-256\`, Bitbucket
  \`X-Hub-Signature\` (\`sha256=\` or \`sha1=\`), GitLab \`X-Gitlab-Token\`, checked against the
  workspace's own secret. The payment provider's webhook is checked by its \`Stripe-Signature\`.

## 3. HTTP API

Generated from the OpenAPI document (\`GET /api/openapi.json\`, built by src/http/openapi.ts).
Auth \`bearer\`: an access token or an API key; \`none\`: public, or proven by the request itself
(a webhook signature, a claim code, a token in the path). Statuses: the success status in bold,
then the error statuses the route can answer (§7). Input lists the query parameters and the JSON
body's fields (\`?\` marks an optional one); the full schemas are in the OpenAPI document.

${httpSection(doc)}

### Outside /api

| Method | Path | Auth | Summary |
|---|---|---|---|
| GET | \`/ws\` | \`quire_ws_token\` cookie | The live event stream (§6) |
| POST, GET, DELETE | \`/mcp\` | bearer (API key or OAuth token) | The MCP server over Streamable HTTP (§5) |
| GET | \`/metrics\` | \`admin\` or \`admin:read\` key | Prometheus metrics, when \`FF_METRICS=true\` and no \`METRICS_PORT\` (that port serves them on 127.0.0.1 without authentication) |
| GET | \`/p/{slug}/…\` | site visibility | A published site: pages, \`{page}.md\`, \`search?q=\`, \`sitemap.xml\`, \`robots.txt\`, \`rss.xml\`, \`llms.txt\`, \`llms-full.txt\`, \`manifest.json\`, theme files and uploads (docs/architecture.md §9) |
| GET | \`/\`, \`/*\` | none | The web app |

## 4. Command-line interface

Generated from the citty command definitions (src/cli.ts, src/commands/). Every command also
takes \`-h\`/\`--help\` and \`-v\`/\`--version\`. Exit codes: 0 success, 1 a failure the command
reports, 2 a configuration or usage error; \`status\` and \`open\` exit 3 when nothing runs. The
data directory is chosen by \`--data-dir\` > \`DATA_DIR\` > an existing \`./.quire\` > the per-user
data location (docs/architecture.md §4).

${await cliSection()}

## 5. MCP tools

Generated from the MCP server's tool list (src/mcp/server.ts; the same list
test/mcp/tools-list.snapshot.json holds). Three ways in: \`quire mcp\` (stdio, one workspace),
\`quire mcp-server\` and \`POST /mcp\` on the main port (Streamable HTTP, every workspace the key
reaches). Each tool validates with the domain's schema and calls the same service as the HTTP
route. \`workspace\` is the slug, optional when the session has one workspace; paths accept a
leading \`/\` and a missing \`.md\`. A key with only the \`read\` scope sees only read-only tools.
Errors come back as \`isError\` results naming the next step (e.g. the current hash on a conflict).
The server also offers each page as a resource (\`quire://{workspace}/{path}\`) and the six writing
modes as prompts.

${mcpSection()}

## 6. Events

${eventsSection()}

## 7. Errors

${errorsSection()}

## 8. Limits

${limitsSection()}

## 9. Records

The answer schemas of the HTTP API (\`components.schemas\` of the OpenAPI document), field by
field; \`?\` marks a field that may be absent.

${recordsSection(doc)}
`;
}

if (import.meta.main) {
  const text = await interfacesDoc();
  writeFileSync(join(ROOT, INTERFACES_DOC), text);
  process.stdout.write(`wrote ${INTERFACES_DOC} (${text.length} characters)\n`);
}
