import { ROLE_LEVEL, type EffectiveRole } from "../../workspaces/roles.ts";

/**
 * Levels of a restricted folder's or page's access list, ordered, and the built-in groups an
 * entry may name (docs/decisions/restricted-folders.md). A level is a number inside this folder so
 * that "the narrowest rule wins" is a `Math.min`: 0 hides, 1 views, 2 comments, 3 edits.
 */
export const ACCESS_LEVELS = ["view", "comment", "edit"] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];
export const ACCESS_GROUPS = ["group:admins", "group:editors", "group:everyone"] as const;
export type AccessGroup = (typeof ACCESS_GROUPS)[number];

/**
 * The "anyone with the link" allowance (docs/decisions/restricted-folders.md, "Share links"): an
 * entry that names no member — it lets a page share link be opened by people without access, at
 * most at this entry's level, which is at most `comment`. Only admins set or remove it.
 */
export const LINK_ANYONE = "link:anyone";
export const LINK_MAX_LEVEL = 2;

export const HIDDEN = 0;
export const FULL = 3;

export function levelRank(level: AccessLevel): number {
  return ACCESS_LEVELS.indexOf(level) + 1;
}

export function levelName(rank: number): AccessLevel | null {
  return rank <= HIDDEN ? null : ACCESS_LEVELS[Math.min(rank, FULL) - 1]!;
}

/** Admins and the Super Admin are never restricted: they must be able to repair anything. */
export function bypasses(role: EffectiveRole): boolean {
  return ROLE_LEVEL[role] >= ROLE_LEVEL.admin;
}

/** The most a workspace role allows, whatever a list grants: a viewer given `edit` views. */
export function roleCap(role: EffectiveRole): number {
  if (bypasses(role) || role === "editor") return FULL;
  return role === "commenter" ? 2 : 1;
}

/** Whether a member of `role` belongs to the group: admins ⊂ editors (editor and above) ⊂ everyone. */
export function inGroup(group: AccessGroup, role: EffectiveRole): boolean {
  if (group === "group:everyone") return true;
  if (group === "group:editors") return ROLE_LEVEL[role] >= ROLE_LEVEL.editor;
  return bypasses(role);
}

/** Whether every member of group `inner` also belongs to `outer`. */
export function groupWithin(inner: AccessGroup, outer: AccessGroup): boolean {
  return ACCESS_GROUPS.indexOf(inner) <= ACCESS_GROUPS.indexOf(outer);
}
