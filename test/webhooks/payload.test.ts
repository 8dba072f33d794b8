/**
 * What an outbound webhook is sent about restricted pages (docs/decisions/restricted-folders.md,
 * "Outbound webhooks"), at the payload builder: an untrusted hook is told only what every member
 * may see; a trusted one everything; a paused hook and an event it did not subscribe to, nothing.
 * The visibility is the real one a published site uses: only `group:everyone` entries grant.
 */
import { describe, expect, test } from "bun:test";
import { RestrictedVisibility, OPEN } from "../../src/access/restrictions/visibility.ts";
import { webhookPayload } from "../../src/webhooks/payload.ts";
import { WEBHOOK_EVENTS } from "../../src/webhooks/schemas.ts";

const WS = "01M8G8000000000000000000WS";
// hr/ is for editors; handbook/ is open to every member (view); guides/board.md to admins.
const everyone = new RestrictedVisibility(
  new Map([
    ["hr/", [{ who: "group:editors", level: "edit" }]],
    ["handbook/", [{ who: "group:everyone", level: "view" }, { who: "ana@example.test", level: "edit" }]],
    ["guides/board.md", [{ who: "group:admins", level: "edit" }]],
  ]),
  "",
  "viewer",
);
const all: readonly string[] = [...WEBHOOK_EVENTS];
type Hook = { events: readonly string[]; active: boolean; trusted: boolean };
const untrusted = { events: all, active: true, trusted: false };
const trusted = { events: all, active: true, trusted: true };
const event = (type: string, payload: Record<string, unknown>) => ({ type, workspace_id: WS, payload: { workspace_id: WS, ...payload } }) as never;
const send = (hook: Hook, type: string, payload: Record<string, unknown>) => webhookPayload(hook, event(type, payload), everyone);

describe("an untrusted hook", () => {
  test("is not sent events of a page hidden from some member, by folder or by page", () => {
    for (const type of ["page-created", "page-updated", "page-deleted"]) {
      expect(send(untrusted, type, { path: "hr/salaries.md" }), type).toBeNull();
      expect(send(untrusted, type, { path: "HR/Salaries.md" }), `${type}, another case`).toBeNull();
      expect(send(untrusted, type, { path: "guides/board.md" }), `${type}, a page rule`).toBeNull();
    }
    expect(send(untrusted, "conflict-detected", { path: "hr/salaries.md" })).toBeNull();
    expect(send(untrusted, "page-moved", { old_path: "hr/a.md", new_path: "hr/b.md" })).toBeNull();
  });

  test("is sent events of open pages, and of folders every member may view, unchanged", () => {
    const payload = { path: "guides/start.md", actor: { id: "u1", name: "Ana" } };
    expect(send(untrusted, "page-updated", payload)).toEqual({ event: "page-updated", workspace_id: WS, data: { workspace_id: WS, ...payload } });
    expect(send(untrusted, "page-created", { path: "handbook/leave.md" })?.data.path).toBe("handbook/leave.md");
    expect(send(untrusted, "sync-status", { status: "ok" })).toEqual({ event: "sync-status", workspace_id: WS, data: { workspace_id: WS, status: "ok" } });
  });

  test("hears a move out of a restricted folder as the page appearing, and into one as the page going", () => {
    expect(send(untrusted, "page-moved", { old_path: "hr/policy.md", new_path: "guides/policy.md" })).toEqual({
      event: "page-created",
      workspace_id: WS,
      data: { workspace_id: WS, path: "guides/policy.md" },
    });
    const out = send(untrusted, "page-moved", { old_path: "guides/policy.md", new_path: "hr/policy.md" });
    expect(out).toEqual({ event: "page-deleted", workspace_id: WS, data: { workspace_id: WS, path: "guides/policy.md" } });
    expect(JSON.stringify(out)).not.toContain("hr/");
  });

  test("gets a bulk sync listing only the open pages, counted as such; none open, none sent", () => {
    const out = send(untrusted, "bulk-sync", { paths: ["guides/a.md", "hr/b.md", "handbook/c.md", "guides/board.md"], changed_count: 4 });
    expect(out?.data).toEqual({ workspace_id: WS, paths: ["guides/a.md", "handbook/c.md"], changed_count: 2 });
    expect(send(untrusted, "bulk-sync", { paths: ["hr/a.md", "hr/b.md"], changed_count: 2 })).toBeNull();
  });

  test("is judged by what it subscribed to as sent: a move into hr/ reaches a page-moved-only hook as nothing", () => {
    const movesOnly = { events: ["page-moved"], active: true, trusted: false };
    expect(send(movesOnly, "page-moved", { old_path: "guides/a.md", new_path: "hr/a.md" })).toBeNull();
    expect(send(movesOnly, "page-moved", { old_path: "guides/a.md", new_path: "guides/b.md" })?.event).toBe("page-moved");
  });
});

describe("a trusted hook", () => {
  test("is sent every event as it is, restricted pages included", () => {
    expect(send(trusted, "page-updated", { path: "hr/salaries.md" })).toEqual({ event: "page-updated", workspace_id: WS, data: { workspace_id: WS, path: "hr/salaries.md" } });
    expect(send(trusted, "page-moved", { old_path: "guides/a.md", new_path: "hr/a.md" })?.event).toBe("page-moved");
    expect(send(trusted, "bulk-sync", { paths: ["hr/a.md", "guides/b.md"], changed_count: 2 })?.data.paths).toEqual(["hr/a.md", "guides/b.md"]);
  });
});

describe("every hook", () => {
  test("a paused hook, an event it did not subscribe to, and events that are no webhook events are not sent", () => {
    expect(send({ ...trusted, active: false }, "page-updated", { path: "guides/a.md" })).toBeNull();
    expect(send({ ...untrusted, events: ["page-created"] }, "page-updated", { path: "guides/a.md" })).toBeNull();
    expect(send(trusted, "page-viewing", { path: "guides/a.md", user_id: "u1" })).toBeNull();
  });

  test("in a workspace without rules an untrusted hook is sent everything it subscribed to", () => {
    expect(webhookPayload(untrusted, event("page-updated", { path: "hr/salaries.md" }), OPEN)?.data.path).toBe("hr/salaries.md");
  });
});
