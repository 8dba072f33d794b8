/** Workspace roles, ordered. Super Admin (the organization owner) sits above admin. */
export const WORKSPACE_ROLES = ["viewer", "commenter", "editor", "admin"] as const;
export type WorkspaceRole = (typeof WORKSPACE_ROLES)[number];
export type EffectiveRole = WorkspaceRole | "super_admin";

export const ROLE_LEVEL: Record<EffectiveRole, number> = {
  viewer: 10,
  commenter: 20,
  editor: 30,
  admin: 40,
  super_admin: 50,
};

export const atLeast = (role: EffectiveRole | null, min: EffectiveRole): boolean =>
  role !== null && ROLE_LEVEL[role] >= ROLE_LEVEL[min];
