import type { Db } from "../db/database.ts";
import type { EventBus } from "../core/event-bus.ts";
import type { Permissions } from "../access/permissions.ts";
import type { Restrictions } from "../access/restrictions/restrictions-service.ts";
import type { WorkspaceRecords } from "../workspaces/workspace-records.ts";
import type { Users } from "../identity/users.ts";
import { Comments } from "./comments.ts";
import type { SharedPages } from "../content/shared-page.ts";
import { ActivityFeed } from "./activity.ts";
import { Templates } from "./templates.ts";
import { People } from "./people.ts";
import { PageViewing } from "../realtime/page-viewing.ts";

/** Working together on pages: comments, the activity feed, templates, people, who is viewing a page. */
export interface CollabServices {
  comments: Comments;
  activity: ActivityFeed;
  templates: Templates;
  people: People;
  pageViewing: PageViewing;
}

export function buildCollabServices(deps: {
  db: Db;
  bus: EventBus;
  permissions: Permissions;
  restrictions: Restrictions;
  workspaces: WorkspaceRecords;
  users: Users;
  sharedPages: SharedPages;
}): CollabServices {
  const { db, bus, permissions, restrictions } = deps;
  return {
    comments: new Comments({ db, permissions, restrictions, workspaces: deps.workspaces, users: deps.users, bus, sharedPages: deps.sharedPages }),
    activity: new ActivityFeed({ db, permissions, restrictions }),
    templates: new Templates(),
    people: new People({ db, permissions }),
    pageViewing: new PageViewing({ permissions, restrictions, bus }),
  };
}
