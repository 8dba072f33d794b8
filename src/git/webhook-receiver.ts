import { randomBytes } from "node:crypto";
import { UnauthorizedError } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import type { WorkspaceRecords } from "../workspaces/workspace-records.ts";
import { parseWebhookPayload } from "./webhook-payload.ts";
import { verifyWebhookSignature, type HeaderSource, type WebhookProvider } from "./webhook-signature.ts";

/** A verified push to a workspace's configured branch. */
export interface PushNotice {
  workspaceId: string;
  branch: string;
  provider: WebhookProvider;
  /** The new tip the sender reported, when it did (the sync fetches regardless). */
  after: string | null;
  /** The sender's delivery id, for the log. */
  deliveryId: string | null;
}

type WebhookOutcome =
  | { status: "accepted"; provider: WebhookProvider; branch: string }
  | { status: "ignored"; provider: WebhookProvider; reason: string }
  | { status: "pong"; provider: WebhookProvider };

type PushHandler = (notice: PushNotice) => unknown;

/**
 * Inbound git push webhooks: verifies the sender against the workspace's secret, reads which
 * branch moved, and hands pushes to the configured branch to the sync engine without waiting for
 * the sync (the sender only needs to know the push was taken).
 *
 * The sync engine subscribes with `onPush`; the receiver does not depend on it, so the HTTP
 * surface and its checks stand on their own.
 */
export class WebhookReceiver {
  private readonly handlers = new Set<PushHandler>();
  /** Verified against when the workspace is unknown, so that path does the same work as a bad signature. */
  private readonly decoySecret = randomBytes(32).toString("hex");

  constructor(private readonly deps: { workspaces: WorkspaceRecords; log: Logger }) {}

  /** Subscribes to accepted pushes (the sync engine; tests listen too); returns the unsubscribe. */
  onPush(handler: PushHandler): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  /**
   * `body` must be the raw bytes as received: the signatures are over them.
   * Throws UNAUTHORIZED (unknown or deleted workspace, missing, malformed or wrong signature —
   * the same answer for all, nothing is done) or VALIDATION_ERROR (verified body that is not a push payload).
   */
  receive(workspaceId: string, headers: HeaderSource, body: Uint8Array): WebhookOutcome {
    const workspace = this.deps.workspaces.byId(workspaceId);
    const check = verifyWebhookSignature(headers, body, workspace?.webhook_secret ?? this.decoySecret);
    // An unknown (or deleted) workspace answers exactly like a bad signature, so the endpoint never
    // tells a caller which workspace ids exist; the real reason goes to the server log only.
    if (workspace === null) {
      this.deps.log.warn("git webhook refused", { workspace_id: workspaceId.slice(0, 64), provider: check.provider, reason: "unknown workspace" });
      throw new UnauthorizedError("Missing or invalid webhook signature");
    }
    if (!check.ok) {
      this.deps.log.warn("git webhook refused", { workspace_id: workspace.id, provider: check.provider, reason: check.reason });
      throw new UnauthorizedError("Missing or invalid webhook signature");
    }
    const event = parseWebhookPayload(headers, body, check.provider);
    if (event.kind === "ping") return { status: "pong", provider: event.provider };
    if (event.kind === "other") return { status: "ignored", provider: event.provider, reason: `event ${event.event} is not a push` };
    const branch = workspace.git_branch;
    if (!event.branches.includes(branch)) {
      return { status: "ignored", provider: event.provider, reason: `push to ${event.branches.join(", ") || "a non-branch ref"}, not ${branch}` };
    }
    if (event.deleted) return { status: "ignored", provider: event.provider, reason: `branch ${branch} was deleted on the remote` };
    // Verified, but there is nothing to pull from: say so rather than claim a sync was started.
    if (!workspace.git_remote) return { status: "ignored", provider: event.provider, reason: "the workspace has no git remote" };

    const notice: PushNotice = {
      workspaceId: workspace.id,
      branch,
      provider: event.provider,
      after: event.after,
      deliveryId: headers.get("x-github-delivery") ?? headers.get("x-gitlab-event-uuid") ?? headers.get("x-request-uuid"),
    };
    this.deps.log.info("git webhook push", { workspace_id: workspace.id, provider: notice.provider, branch, delivery_id: notice.deliveryId });
    this.dispatch(notice);
    return { status: "accepted", provider: event.provider, branch };
  }

  /** Runs the handlers detached: a sync's failure is the sync's business (status `error`), not the sender's. */
  private dispatch(notice: PushNotice): void {
    if (this.handlers.size === 0) {
      this.deps.log.warn("git webhook push with no sync engine attached", { workspace_id: notice.workspaceId });
      return;
    }
    const failed = (error: unknown) => this.deps.log.error("webhook-triggered sync failed", { workspace_id: notice.workspaceId, error: String(error) });
    for (const handler of [...this.handlers]) {
      queueMicrotask(() => {
        try {
          const result = handler(notice);
          if (result instanceof Promise) result.catch(failed);
        } catch (error) {
          failed(error);
        }
      });
    }
  }
}
