import type { Db } from "../db/database.ts";
import type { Logger } from "../core/log.ts";
import type { Closers } from "../core/closers.ts";
import type { EventBus } from "../core/event-bus.ts";
import type { Permissions } from "../access/permissions.ts";
import type { Restrictions } from "../access/restrictions/restrictions-service.ts";
import type { WorkspaceRecords } from "../workspaces/workspace-records.ts";
import type { Sessions } from "../identity/sessions.ts";
import { RealtimeHub } from "./hub.ts";

/** The WebSocket hub, following the event bus from the start; its sockets close with the process. */
export function buildRealtime(deps: { db: Db; log: Logger; closers: Closers; bus: EventBus; permissions: Permissions; restrictions: Restrictions; workspaces: WorkspaceRecords; sessions: Sessions }): RealtimeHub {
  const { db, bus, permissions, restrictions, workspaces, sessions, log } = deps;
  const realtime = new RealtimeHub({ db, bus, permissions, restrictions, workspaces, sessions, log });
  realtime.start();
  deps.closers.push(() => realtime.stop());
  return realtime;
}
