import type { EffectiveRole } from "../../workspaces/roles.ts";
import { bypasses, FULL, HIDDEN, levelRank, roleCap, type AccessLevel } from "./levels.ts";
import { ancestorKeys, linkGrant, matchKey, memberGrant, type AccessEntry } from "./rules.ts";

/**
 * What one person may do with each page of one workspace under its restrictions: the one place
 * every read and write path asks (docs/decisions/restricted-folders.md). A workspace without rules,
 * and an admin anywhere, get OPEN, whose answers are constants: no rule is looked at.
 *
 * A page's level is the smallest grant of every rule on its way from the root (each restricted
 * folder above it, then the page's own rule), capped by the workspace role; 0 hides it. Each
 * folder's level is computed once per person and kept in this object, which the restriction
 * service keeps until the rules or the person's role change.
 */
export interface PageVisibility {
  /** False when nothing is restricted for this person: every answer below is `true`. */
  readonly restricted: boolean;
  /** Whether the page (or folder, ending in `/`) exists for this person. */
  sees(path: string): boolean;
  /** Whether the person's restriction level on the path reaches `level` (the role is checked elsewhere). */
  allows(path: string, level: AccessLevel): boolean;
  /**
   * Whether a rule hiding a folder or page from this person lies inside a sub-folder of `folder`
   * ("" the root), so that a new folder started in it could be one they may not see.
   */
  holdsHidden(folder: string): boolean;
}

export const OPEN: PageVisibility = {
  restricted: false,
  sees: () => true,
  allows: () => true,
  holdsHidden: () => false,
};

/** The rules as the visibility reads them: keyed by matchKey, folders ending in `/`. */
export type CompiledRules = ReadonlyMap<string, readonly AccessEntry[]>;

export class RestrictedVisibility implements PageVisibility {
  readonly restricted = true;
  /** Level per folder (matchKey, "" for the root), filled as pages are asked about. */
  private readonly folders = new Map<string, number>([["", FULL]]);
  /** The folders (matchKey ending in `/`, "" for the root) that hold a hidden rule in a sub-folder; made on first use. */
  private hiddenBelow: Set<string> | undefined;

  constructor(
    private readonly rules: CompiledRules,
    private readonly email: string,
    private readonly role: EffectiveRole,
  ) {}

  sees(path: string): boolean {
    return this.level(path) > HIDDEN;
  }

  allows(path: string, level: AccessLevel): boolean {
    return this.level(path) >= levelRank(level);
  }

  holdsHidden(folder: string): boolean {
    this.hiddenBelow ??= this.foldersAboveHidden();
    return this.hiddenBelow.has(folder === "" ? "" : `${matchKey(folder)}/`);
  }

  /**
   * Each rule hidden from this person marks every folder above the one it covers: the folder it
   * restricts (a folder rule) or the one it sits in (a page rule), which could be a writer's new
   * folder. A page rule marks no folder it sits in directly: no new folder there can hold it.
   */
  private foldersAboveHidden(): Set<string> {
    const out = new Set<string>();
    for (const key of this.rules.keys()) {
      if (this.sees(key)) continue;
      const above = ["", ...ancestorKeys(key)];
      if (!key.endsWith("/")) above.pop();
      for (const folder of above) out.add(folder);
    }
    return out;
  }

  /** The person's level on a page path (or a folder path ending in `/`). */
  level(path: string): number {
    const key = matchKey(path);
    if (key.endsWith("/")) return this.folder(key);
    const slash = key.lastIndexOf("/");
    const above = this.folder(slash === -1 ? "" : key.slice(0, slash + 1));
    const own = this.rules.get(key);
    return own ? Math.min(above, this.grant(own)) : above;
  }

  private folder(key: string): number {
    const known = this.folders.get(key);
    if (known !== undefined) return known;
    const parentEnd = key.lastIndexOf("/", key.length - 2);
    const above = this.folder(parentEnd === -1 ? "" : key.slice(0, parentEnd + 1));
    const own = this.rules.get(key);
    const level = own ? Math.min(above, this.grant(own)) : above;
    this.folders.set(key, level);
    return level;
  }

  private grant(entries: readonly AccessEntry[]): number {
    return Math.min(roleCap(this.role), memberGrant(entries, this.email, this.role));
  }
}

/** The visibility of a person with `role` (null: none at all) under the rules. */
export function visibilityFor(rules: CompiledRules, email: string, role: EffectiveRole | null): PageVisibility {
  if (rules.size === 0 || (role !== null && bypasses(role))) return OPEN;
  return new RestrictedVisibility(rules, email, role ?? "viewer");
}


/**
 * What a page share link allows someone without access on `path` (docs/decisions/restricted-folders.md,
 * "Share links"): FULL where no rule lies on the path, else the smallest `link:anyone` grant of
 * every rule on the way (0 when one of them has none: a rule below can only take the allowance away).
 */
export function linkLevel(rules: CompiledRules, path: string): number {
  if (rules.size === 0) return FULL;
  const key = matchKey(path);
  let level = FULL;
  for (const k of [...ancestorKeys(key), key]) {
    const own = rules.get(k);
    if (own) level = Math.min(level, linkGrant(own));
  }
  return level;
}
