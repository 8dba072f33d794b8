import { ValidationError } from "../core/errors.ts";
import { parseInput } from "../core/validate.ts";
import type { HeaderSource, WebhookProvider } from "./webhook-signature.ts";
import { bitbucketPushSchema, githubPushSchema, gitlabPushSchema } from "./schemas.ts";

/**
 * What an inbound push webhook says, reduced to what Quire acts on: which branches moved.
 * File lists are not used (GitLab truncates them, Bitbucket sends none): the sync diffs after
 * fetching.
 */
type WebhookEvent =
  | { kind: "ping"; provider: WebhookProvider }
  /** A push; `branches` are the branch names that moved (tags excluded), `deleted` when the push removed them. */
  | { kind: "push"; provider: WebhookProvider; branches: string[]; deleted: boolean; after: string | null }
  /** Any other event the sender was configured to send (issues, tag pushes, ...): acknowledged, ignored. */
  | { kind: "other"; provider: WebhookProvider; event: string };


const GITLAB_ZERO = /^0+$/;

/**
 * Decodes the verified raw body (JSON, or GitHub's form encoding with a `payload` field) and
 * reads the event. Throws VALIDATION_ERROR when the body is not JSON or not a push payload of an
 * event that should carry one.
 */
export function parseWebhookPayload(headers: HeaderSource, body: Uint8Array, provider: WebhookProvider): WebhookEvent {
  const payload = decodeBody(headers, body);
  const event = eventName(headers, provider);
  if (event !== null && isPing(event, provider)) return { kind: "ping", provider };
  if (event !== null && !isPushEvent(event, provider)) return { kind: "other", provider, event };

  if (provider === "bitbucket" || (event === null && isRecord(payload) && isRecord(payload.push))) {
    const push = parseInput(bitbucketPushSchema, payload).push;
    const branches = new Set<string>();
    let deleted = false;
    let after: string | null = null;
    for (const change of push.changes) {
      if (change.new && change.new.type === "branch") {
        branches.add(change.new.name);
        after ??= change.new.target?.hash ?? null;
      } else if (!change.new && change.old?.type === "branch") {
        branches.add(change.old.name);
        deleted = true;
      }
    }
    return { kind: "push", provider, branches: [...branches], deleted, after };
  }

  if (provider === "gitlab") {
    const push = parseInput(gitlabPushSchema, payload);
    if (push.object_kind !== "push") return { kind: "other", provider, event: push.object_kind };
    if (push.ref === undefined) throw new ValidationError("ref: a push payload names the ref it moved", "ref");
    const branch = branchOf(push.ref);
    return {
      kind: "push",
      provider,
      branches: branch === null ? [] : [branch],
      deleted: push.after !== undefined && GITLAB_ZERO.test(push.after),
      after: push.after ?? null,
    };
  }

  const push = parseInput(githubPushSchema, payload);
  const branch = branchOf(push.ref);
  return { kind: "push", provider, branches: branch === null ? [] : [branch], deleted: push.deleted === true, after: push.after ?? null };
}

/** `refs/heads/feature/x` → `feature/x`; tags and other refs → null. */
function branchOf(ref: string): string | null {
  return ref.startsWith("refs/heads/") && ref.length > "refs/heads/".length ? ref.slice("refs/heads/".length) : null;
}

function eventName(headers: HeaderSource, provider: WebhookProvider): string | null {
  const name = provider === "github" ? "x-github-event" : provider === "gitlab" ? "x-gitlab-event" : "x-event-key";
  const value = headers.get(name)?.trim();
  return value ? value : null;
}

function isPing(event: string, provider: WebhookProvider): boolean {
  if (provider === "github") return event.toLowerCase() === "ping";
  if (provider === "bitbucket") return event.toLowerCase() === "diagnostics:ping";
  return false;
}

function isPushEvent(event: string, provider: WebhookProvider): boolean {
  const e = event.toLowerCase();
  if (provider === "github") return e === "push";
  if (provider === "gitlab") return e === "push hook";
  return e === "repo:push";
}

function decodeBody(headers: HeaderSource, body: Uint8Array): unknown {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    throw new ValidationError("The webhook body is not UTF-8 text", "body");
  }
  const type = (headers.get("content-type") ?? "").toLowerCase();
  // GitHub's "application/x-www-form-urlencoded" content type sends the JSON in a `payload` field.
  if (type.startsWith("application/x-www-form-urlencoded")) {
    const field = new URLSearchParams(text).get("payload");
    if (field === null) throw new ValidationError("The form-encoded webhook body has no payload field", "payload");
    text = field;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ValidationError("The webhook body is not valid JSON", "body");
  }
  if (!isRecord(value)) throw new ValidationError("The webhook body must be a JSON object", "body");
  return value;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
