import type { Db } from "../db/database.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../core/log.ts";
import type { Users } from "../identity/users.ts";
import type { Organizations } from "../identity/organizations.ts";
import type { PasswordHasher } from "../identity/passwords.ts";
import type { AuthService } from "../identity/auth-service.ts";
import type { EmailOutbox } from "../mail/email-outbox.ts";
import type { WorkspaceRecords } from "../workspaces/workspace-records.ts";
import { WorkspaceService } from "./workspace-service.ts";
import { WorkspaceSettings } from "./workspace-settings.ts";
import type { Permissions } from "./permissions.ts";
import { Members } from "./members.ts";
import { Invitations } from "./invitations.ts";
import { InvitationAcceptance } from "./invitation-accept.ts";
import { ShareLinks } from "./share-links.ts";
import { Restrictions } from "./restrictions/restrictions-service.ts";
import { RemoteVisibility } from "./restrictions/remote-visibility.ts";

/** The services of the access layer: workspaces, settings, members, invitations, share links. */
export interface AccessServices {
  workspaceService: WorkspaceService;
  workspaceSettings: WorkspaceSettings;
  members: Members;
  invitations: Invitations;
  invitationAcceptance: InvitationAcceptance;
  shareLinks: ShareLinks;
  /** Restricted folders and pages: the rules, and who may see what under them. */
  restrictions: Restrictions;
}

export function buildAccessServices(deps: {
  db: Db;
  config: Config;
  log: Logger;
  users: Users;
  organizations: Organizations;
  passwords: PasswordHasher;
  auth: AuthService;
  email: EmailOutbox;
  workspaces: WorkspaceRecords;
  permissions: Permissions;
}): AccessServices {
  const { db, config, log, workspaces, permissions } = deps;
  const remotes = new RemoteVisibility({ githubApiUrl: config.git.githubApiUrl, gitlabApiUrl: config.git.gitlabApiUrl, allowPrivate: config.git.allowPrivate });
  const restrictions = new Restrictions({ db, permissions, users: deps.users, remotes });
  const workspaceService = new WorkspaceService({ db, records: workspaces, permissions, restrictions });
  const members = new Members({
    db,
    permissions,
    onListenerError: (error) => log.error("membership listener failed", { error: String(error) }),
  });
  return {
    workspaceService,
    workspaceSettings: new WorkspaceSettings({ db, records: workspaces, permissions, baseUrl: config.baseUrl }),
    members,
    invitations: new Invitations({ db, permissions, email: deps.email, baseUrl: config.baseUrl }),
    invitationAcceptance: new InvitationAcceptance({
      db,
      config,
      users: deps.users,
      organizations: deps.organizations,
      passwords: deps.passwords,
      auth: deps.auth,
      members,
      workspaces,
    }),
    shareLinks: new ShareLinks({
      db,
      permissions,
      members,
      workspaces,
      present: (row, role, principal) => workspaceService.present(row, role, principal),
      restrictions,
    }),
    restrictions,
  };
}
