/** Helpers shared by the access and workspace tests: people with a given role in a workspace. */
import type { TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import type { WorkspaceRole } from "../../src/workspaces/roles.ts";

/** The token inside an accept link `{BASE_URL}/invite/{token}`. */
export function inviteToken(url: string): string {
  const match = /\/invite\/([A-Za-z0-9_-]+)/.exec(url);
  if (!match) throw new Error(`no invitation token in ${url}`);
  return match[1]!;
}

/**
 * Registers a new user and brings them into `workspaceId` with `role`, the way a person would:
 * the admin invites their address (no email configured, so the link comes back in the response)
 * and they accept with their password.
 */
export async function memberWithRole(server: TestServer, admin: TestUser, workspaceId: string, role: WorkspaceRole): Promise<TestUser> {
  const user = await registerUser(server.url);
  const invite = await admin.client.post(`/api/v1/workspaces/${workspaceId}/invitations`, { email: user.email, role });
  if (invite.status !== 201) throw new Error(`invite failed: ${invite.status} ${invite.text}`);
  const accept = await user.client.post("/api/auth/invitations/accept", { token: inviteToken(invite.body.url), password: user.password });
  if (accept.status !== 200) throw new Error(`accept failed: ${accept.status} ${accept.text}`);
  return user;
}

/** The role column of a membership row, read straight from the database. */
export function memberRole(server: TestServer, workspaceId: string, userId: string): string | null {
  return (
    server.services.db
      .query<{ role: string }, [string, string]>("SELECT role FROM workspace_members WHERE workspace_id = ? AND user_id = ?")
      .get(workspaceId, userId)?.role ?? null
  );
}
