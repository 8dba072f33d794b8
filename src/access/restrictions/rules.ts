import { ValidationError } from "../../core/errors.ts";
import type { EffectiveRole } from "../../workspaces/roles.ts";
import { ACCESS_GROUPS, ACCESS_LEVELS, groupWithin, inGroup, levelRank, LINK_ANYONE, LINK_MAX_LEVEL, type AccessGroup, type AccessLevel } from "./levels.ts";

/**
 * The rules themselves, as pure values: a map from a restricted folder (`hr/`) or page
 * (`guides/launch-plan.md`) to its access list. Everything here is checked the same way whether
 * the rules come from the API or from `.quire/access.yaml` pulled from git
 * (docs/decisions/restricted-folders.md).
 */
export interface AccessEntry {
  who: string;
  level: AccessLevel;
}
export type RuleSet = Map<string, AccessEntry[]>;

/** One list names each member or group once; a workspace's lists stay far below these. */
export const MAX_ENTRIES = 1000;
export const MAX_RULES = 5000;

const isGroup = (who: string): who is AccessGroup => (ACCESS_GROUPS as readonly string[]).includes(who);
export const normalizeWho = (who: string): string => who.trim().normalize("NFC").toLowerCase();

/**
 * A rule's key as stored: no leading `/`, a folder ending in `/`, a page ending in `.md`; no empty,
 * `.` or `..` segment and no hidden segment, so `./hr/../hr/` cannot name a second rule for `hr/`.
 */
export function ruleKey(raw: string, field = "path"): string {
  let path = raw.trim();
  while (path.startsWith("/")) path = path.slice(1);
  const bad = (why: string) => new ValidationError(`${field}: ${why}`, field);
  if (path.length === 0 || path.length > 1024) throw bad("must name a folder (ending in '/') or a page (ending in '.md')");
  if (/[\u0000-\u001f\\]/.test(path)) throw bad("must not contain backslashes or control characters");
  const folder = path.endsWith("/");
  if (!folder && !path.endsWith(".md")) throw bad("a folder ends with '/', a page with '.md'");
  const segments = (folder ? path.slice(0, -1) : path).split("/");
  if (segments.some((s) => s === "" || s.startsWith("."))) throw bad("must not contain empty, '.', '..' or hidden segments");
  return path;
}

/** What rules are matched by: paths compare without case, so `HR/` is as restricted as `hr/` on any file system. */
export const matchKey = (key: string): string => key.toLowerCase();

/** The folder keys above a page or folder key, outermost first (`a/b/c.md` → `a/`, `a/b/`). */
export function ancestorKeys(key: string): string[] {
  const out: string[] = [];
  let at = key.indexOf("/");
  while (at !== -1 && at < key.length - 1) {
    out.push(key.slice(0, at + 1));
    at = key.indexOf("/", at + 1);
  }
  return out;
}

/** What a list grants a member (0: nothing): the highest of their own entry and their groups'. `link:anyone` is no member's entry. */
export function memberGrant(entries: readonly AccessEntry[], email: string, role: EffectiveRole): number {
  let best = 0;
  for (const e of entries) {
    const matches = isGroup(e.who) ? inGroup(e.who, role) : e.who === email;
    if (matches) best = Math.max(best, levelRank(e.level));
  }
  return best;
}

/** What a list grants every member of a group for certain (entries of that group or a wider one). */
function groupGrant(entries: readonly AccessEntry[], group: AccessGroup): number {
  let best = 0;
  for (const e of entries) if (isGroup(e.who) && groupWithin(group, e.who)) best = Math.max(best, levelRank(e.level));
  return best;
}

/**
 * Checks one list's shape: known levels, each `who` a group or a member of the workspace (by
 * email, `members` maps normalized emails to roles), none named twice, at most MAX_ENTRIES.
 * `known` names entries accepted earlier (a member removed since keeps their old entry, which
 * grants nothing while they are not a member).
 */
export function checkEntries(raw: readonly { who: string; level: string }[], members: ReadonlyMap<string, EffectiveRole>, known?: readonly AccessEntry[]): AccessEntry[] {
  if (raw.length > MAX_ENTRIES) throw new ValidationError(`entries: at most ${MAX_ENTRIES} entries in one list`, "entries");
  const seen = new Set<string>();
  const out: AccessEntry[] = [];
  raw.forEach((entry, i) => {
    const who = normalizeWho(entry.who);
    if (!(ACCESS_LEVELS as readonly string[]).includes(entry.level)) {
      throw new ValidationError(`entries[${i}].level: must be one of view, comment, edit`, `entries[${i}].level`);
    }
    if (seen.has(who)) throw new ValidationError(`entries[${i}].who: ${who} is named twice`, `entries[${i}].who`);
    seen.add(who);
    const stale = known?.some((k) => k.who === who);
    if (who.startsWith("group:") && !isGroup(who)) {
      throw new ValidationError(`entries[${i}].who: unknown group ${who} (group:admins, group:editors or group:everyone)`, `entries[${i}].who`);
    }
    if (who === LINK_ANYONE) {
      if (levelRank(entry.level as AccessLevel) > LINK_MAX_LEVEL) {
        throw new ValidationError(`entries[${i}].level: ${LINK_ANYONE} allows view or comment at most`, `entries[${i}].level`);
      }
      out.push({ who, level: entry.level as AccessLevel });
      return;
    }
    if (who.startsWith("link:")) {
      throw new ValidationError(`entries[${i}].who: unknown ${who} (${LINK_ANYONE} is the one link entry)`, `entries[${i}].who`);
    }
    if (!isGroup(who) && !members.has(who) && !stale) {
      throw new ValidationError(`entries[${i}].who: ${who} is not a member of this workspace`, `entries[${i}].who`);
    }
    out.push({ who, level: entry.level as AccessLevel });
  });
  return out;
}

/**
 * A rule may only narrow what the rules above it allow: every entry of a list must grant no more
 * than each restricted folder above it grants the same member or group. (Access is the minimum
 * along the path anyway, so a widening rule could never widen; it is refused so that the file
 * says what really holds.) Entries for admins are exempt: admins always have full access.
 */
export function findWidening(rules: RuleSet, members: ReadonlyMap<string, EffectiveRole>): string | null {
  const byMatch = new Map<string, { key: string; entries: AccessEntry[] }>();
  for (const [key, entries] of rules) byMatch.set(matchKey(key), { key, entries });
  for (const [key, entries] of rules) {
    for (const parentKey of ancestorKeys(matchKey(key))) {
      const parent = byMatch.get(parentKey);
      if (!parent) continue;
      for (const e of entries) {
        if (e.who === "group:admins") continue;
        const role = members.get(e.who);
        if (role && inGroup("group:admins", role)) continue;
        // The link allowance narrows like any entry: a rule below may keep or drop it, never add it.
        const above =
          e.who === LINK_ANYONE ? linkGrant(parent.entries) : isGroup(e.who) ? groupGrant(parent.entries, e.who) : memberGrant(parent.entries, e.who, role ?? "viewer");
        if (levelRank(e.level) > above) {
          const allowed = above === 0 ? "no access" : ACCESS_LEVELS[above - 1];
          return `${key}: gives ${e.who} ${e.level}, but ${parent.key} above it allows ${allowed}; a rule can only narrow its parent's`;
        }
      }
    }
  }
  return null;
}

/** Two keys naming the same folder or page up to case are one rule written twice. */
export function findDuplicateKey(rules: RuleSet): string | null {
  const seen = new Map<string, string>();
  for (const key of rules.keys()) {
    const other = seen.get(matchKey(key));
    if (other !== undefined) return `${key} and ${other} name the same ${key.endsWith("/") ? "folder" : "page"}`;
    seen.set(matchKey(key), key);
  }
  return null;
}

/** What a list allows a share link opened by someone without access (0: nothing): its `link:anyone` entry. */
export function linkGrant(entries: readonly AccessEntry[]): number {
  const entry = entries.find((e) => e.who === LINK_ANYONE);
  return entry ? levelRank(entry.level) : 0;
}
