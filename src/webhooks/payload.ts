import type { PageVisibility } from "../access/restrictions/visibility.ts";
import { shownTo } from "../realtime/event-visibility.ts";
import type { WorkspaceEvent } from "../core/event-bus.ts";

/**
 * What one outbound webhook is sent for one workspace event (docs/decisions/restricted-folders.md,
 * "Outbound webhooks"). A webhook's receiver is outside Quire's rights: whoever reads its log is no
 * member with a level. So an untrusted hook is told only what every member may see — the events
 * are judged as for a member whom only `group:everyone` entries reach, as a published site is: an
 * event naming a page hidden from anyone is not sent, a move between a hidden and an open place
 * arrives as the page appearing or going, a bulk sync lists only the open pages. A hook an admin
 * marks trusted is sent every event as it is. Delivery itself is not active yet; this is what it
 * will send.
 */
interface WebhookTarget {
  events: readonly string[];
  active: boolean;
  trusted: boolean;
}

/** The body of one delivery. */
export interface WebhookBody {
  event: string;
  workspace_id: string;
  data: Record<string, unknown>;
}

/**
 * The body to send `hook` for `event`, or null when it is not sent: the hook is paused, the event
 * (as this hook may see it) is not one it subscribed to, or it names only pages hidden from some
 * member and the hook is not trusted. `everyone` is what group:everyone may see
 * (Restrictions.everyoneVisibility).
 */
export function webhookPayload(hook: WebhookTarget, event: WorkspaceEvent, everyone: PageVisibility): WebhookBody | null {
  if (!hook.active) return null;
  const shown = hook.trusted ? { type: event.type, payload: event.payload } : shownTo(event.type, event.payload, everyone);
  if (shown === null || !hook.events.includes(shown.type)) return null;
  return { event: shown.type, workspace_id: event.workspace_id, data: shown.payload };
}
