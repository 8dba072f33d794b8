import type { Db } from "../../db/database.ts";
import { ForbiddenError, NotFoundError, ValidationError } from "../../core/errors.ts";
import { nowIso } from "../../core/clock.ts";
import { ulid, isUlid } from "../../core/ids.ts";
import { parseInput } from "../../core/validate.ts";
import type { Principal } from "../../core/principal.ts";
import type { Permissions } from "../permissions.ts";
import { atLeast, type EffectiveRole } from "../../workspaces/roles.ts";
import { editorsManageAccess } from "../../workspaces/rights.ts";
import type { WorkspaceRow } from "../../workspaces/workspace-records.ts";
import { bypasses, levelName, FULL, HIDDEN, LINK_ANYONE } from "./levels.ts";
import { ancestorKeys, checkEntries, findDuplicateKey, findWidening, matchKey, MAX_RULES, ruleKey, type AccessEntry, type RuleSet } from "./rules.ts";
import { parseRulesFile, serializeRules } from "./access-file.ts";
import { RuleStore } from "./rule-store.ts";
import { linkLevel, OPEN, visibilityFor, RestrictedVisibility, type CompiledRules, type PageVisibility } from "./visibility.ts";
import { effectiveAccessQuery, setAccessInput } from "./schemas.ts";
import { RemoteVisibility } from "./remote-visibility.ts";

/** What a workspace's rules are kept as between requests: one immutable snapshot per change. */
interface Loaded {
  rules: RuleSet;
  compiled: CompiledRules;
  keys: ReadonlySet<string>;
  /** What a published site may show (only group:everyone grants), made on first use. */
  everyone?: PageVisibility;
  /** Visibilities by role and email: each person's folder levels are computed once per snapshot. */
  people: Map<string, PageVisibility>;
}

/** Kept visibilities per workspace before the map is cleared (it refills as people come back). */
const MAX_PEOPLE = 5000;

/** The work tree's side of the rules, provided by the composition root (the content and git layers). */
export interface AccessFileHooks {
  /** The text of `.quire/access.yaml`, or null when there is none. */
  read(workspaceId: string): string | null;
  /** Writes the file (from `text()`, read when the write runs) and commits it as `author`. */
  write(workspaceId: string, text: () => string, author: { id: string; name: string; email: string }): Promise<void>;
  /** Whether a live page is at `path`, or under it for a folder (`…/`). */
  exists(workspaceId: string, path: string): boolean;
}

/**
 * Restricted folders and pages (docs/decisions/restricted-folders.md): the rules of each
 * workspace, their checks, who may see what (`visibility`, asked by every read and write path),
 * and the two ways rules change: an admin's PUT (database, then `.quire/access.yaml` committed)
 * and a file arriving from git or the disk (validated; a refused file changes nothing).
 */
export class Restrictions {
  private readonly store: RuleStore;
  private readonly loaded = new Map<string, Loaded>();
  private remotes: RemoteVisibility | undefined;
  /** Set by the composition root; without it (a bare service in a tool) rules live in the database only. */
  file: AccessFileHooks | null = null;
  /** Told after a workspace's rules changed (published sites rebuild their pages); a hook must not throw. */
  readonly changedHooks: Array<(workspaceId: string) => void> = [];

  constructor(
    private readonly deps: {
      db: Db;
      permissions: Permissions;
      users: { byId(id: string): { name: string; email: string; email_normalized: string } | null };
      /** Asks a remote's forge whether it is public; the configured one from the composition root, else github.com/gitlab.com. */
      remotes?: RemoteVisibility;
    },
  ) {
    this.store = new RuleStore(deps.db);
  }

  /** What the person may see and do in the workspace under its rules; a constant no-op when it has none. */
  visibility(workspace: WorkspaceRow, email: string, role: EffectiveRole | null): PageVisibility {
    if (role !== null && bypasses(role)) return OPEN;
    const loaded = this.load(workspace);
    if (loaded.rules.size === 0) return OPEN;
    const key = `${role ?? ""}\0${email}`;
    let vis = loaded.people.get(key);
    if (!vis) {
      if (loaded.people.size >= MAX_PEOPLE) loaded.people.clear();
      vis = visibilityFor(loaded.compiled, email, role);
      loaded.people.set(key, vis);
    }
    return vis;
  }

  /** The visibility of the principal's owner (the principal's role already checked by the caller). */
  visibilityOf(principal: Principal, workspace: WorkspaceRow, role: EffectiveRole | null): PageVisibility {
    return this.visibilityOfUser(principal.userId, workspace, role);
  }

  /** The visibility of a user by id (a WebSocket connection knows its user, not a principal). */
  visibilityOfUser(userId: string, workspace: WorkspaceRow, role: EffectiveRole | null): PageVisibility {
    if (role !== null && bypasses(role)) return OPEN;
    if (this.load(workspace).rules.size === 0) return OPEN;
    return this.visibility(workspace, this.deps.users.byId(userId)?.email_normalized ?? "", role);
  }

  /** The workspace's rule keys (lower-cased, folders ending in `/`): whoever sees a node sees that it is restricted. */
  ruleKeys(workspace: WorkspaceRow): ReadonlySet<string> {
    return this.load(workspace).keys;
  }

  /** Whether the workspace has any rule (published sites and exports leave restricted pages out). */
  hasRules(workspace: WorkspaceRow): boolean {
    return this.load(workspace).rules.size > 0;
  }

  /** What nobody but the `group:everyone` entries grant: what a published site may show. */
  everyoneVisibility(workspace: WorkspaceRow): PageVisibility {
    const loaded = this.load(workspace);
    if (loaded.rules.size === 0) return OPEN;
    // Kept with the snapshot like a person's: nobody's email, the lowest role, so only group:everyone grants.
    loaded.everyone ??= new RestrictedVisibility(loaded.compiled, "", "viewer");
    return loaded.everyone;
  }

  /**
   * What a page share link allows someone without access on `path` (a level, 0 hiding it): FULL on
   * an unrestricted path, else the `link:anyone` allowance along its rules. Read from the current
   * snapshot at every opening, so turning the allowance off stops every such link at once.
   */
  linkLevel(workspace: WorkspaceRow, path: string): number {
    return linkLevel(this.load(workspace).compiled, path);
  }

  // ---- the admin's endpoints ------------------------------------------------------------------

  /** The rules: all of them for an admin; for an editor who manages access, those on paths they may edit. */
  list(principal: Principal, ref: string): { restricted: Record<string, AccessEntry[]>; refused: string | null } {
    const { workspace, vis } = this.requireManager(principal, ref);
    const { rules } = this.load(workspace);
    const shown = [...rules].filter(([path]) => vis.allows(path, "edit") && vis.sees(path));
    // Why a file from git was refused may name any path: admins only.
    const refused = vis.restricted ? null : this.store.refusal(workspace.id);
    return { restricted: Object.fromEntries(shown.sort(([a], [b]) => (a < b ? -1 : 1))), refused };
  }

  /** Sets (or, with `entries: []`, lifts) one rule; the audit entry and the file's commit follow. */
  async set(principal: Principal, ref: string, body: unknown) {
    const input = parseInput(setAccessInput, body);
    const { workspace, role, email, vis } = this.requireManager(principal, ref);
    const path = ruleKey(input.path);
    this.assertManages(workspace, role, vis, path);
    const change = () => {
      const planned = this.planChange(workspace, path, input.entries);
      if (!bypasses(role)) this.assertKeepsLinkAllowance(workspace, path, planned.next);
      // An editor may not set a list that leaves them without edit there: they could not undo it.
      if (!bypasses(role) && !visibilityFor(compile(planned.next), email, role).allows(path, "edit")) {
        throw new ValidationError("entries: this list would take away your own edit access here; only an admin may set it", "entries");
      }
      return planned;
    };
    const first = change(); // bad input is refused before any remote is asked
    const asks = first.entries !== null && first.before === null && workspace.git_remote !== null;
    if (asks) await this.assertRemoteMayHide(workspace.git_remote!, input.confirm_private_remote === true);
    // Planned again after the wait, from the rules as they are now: a change made meanwhile is kept.
    const { before, entries, next } = asks ? change() : first;
    const user = this.deps.users.byId(principal.userId);
    const now = nowIso();
    this.deps.db.transaction(() => {
      this.store.put(workspace.id, path, entries, principal.userId, now);
      // The file is written from these rules next: a refused file from git is replaced by a valid one.
      this.store.setRefusal(workspace.id, null, now);
      this.audit(workspace.id, principal.userId, user?.name ?? "", path, before, entries, now);
    })();
    this.replace(workspace.id, next);
    if (this.file) {
      await this.file.write(workspace.id, () => serializeRules(this.loaded.get(workspace.id)?.rules ?? next), {
        id: principal.userId,
        name: user?.name ?? "",
        email: user?.email ?? "",
      });
    }
    return this.effectiveFor(workspace, role, user?.email_normalized ?? "", path);
  }

  /** Each member's level on one folder or page, with the rule it comes from (admins: the "Share / access" dialog). */
  members(principal: Principal, ref: string, query: unknown) {
    const { path: raw } = parseInput(effectiveAccessQuery, query);
    const { workspace, role, vis } = this.requireManager(principal, ref);
    const path = ruleKey(raw);
    this.assertManages(workspace, role, vis, path);
    const items = this.store.people(workspace.id, workspace.org_id).map((p) => {
      const vis = this.visibility(workspace, p.email_normalized, p.role);
      const rank = vis instanceof RestrictedVisibility ? vis.level(path) : FULL;
      const level = levelName(rank);
      return { user_id: p.id, name: p.name, email: p.email, role: p.role, level: level === null ? null : capByRole(level, p.role) };
    });
    return { path, from: this.effectiveFor(workspace, "admin", "", path).from, items };
  }

  /** Every member's level on every restricted folder and page, by path (admins: the members screen). */
  people(principal: Principal, ref: string) {
    const { workspace } = this.deps.permissions.require(principal, toRef(ref), "admin");
    const paths = [...this.load(workspace).rules.keys()].sort();
    const items = this.store.people(workspace.id, workspace.org_id).map((p) => {
      const vis = this.visibility(workspace, p.email_normalized, p.role);
      const restricted = paths.map((path) => {
        const level = levelName(vis instanceof RestrictedVisibility ? vis.level(path) : FULL);
        return { path, level: level === null ? null : capByRole(level, p.role) };
      });
      return { user_id: p.id, restricted };
    });
    return { items };
  }

  /**
   * Who may manage access lists (docs/decisions/restricted-folders.md, "Editors managing access"):
   * admins; and, when the workspace turns `editors_manage_access` on, editors — on a path only where
   * their level is `edit` (assertManages). Everyone else is refused exactly as before the setting.
   */
  private requireManager(principal: Principal, ref: string) {
    const { workspace, role } = this.deps.permissions.require(principal, toRef(ref), "viewer");
    const email = this.deps.users.byId(principal.userId)?.email_normalized ?? "";
    if (bypasses(role)) return { workspace, role, email, vis: OPEN };
    if (!atLeast(role, "editor") || !editorsManageAccess(workspace)) throw new ForbiddenError("This needs the admin role in the workspace");
    return { workspace, role, email, vis: this.visibility(workspace, email, role) };
  }

  /**
   * An editor's reach on one path: it must exist for them (a path with no page answers as a hidden
   * one, both looked up, so setting a rule cannot tell them apart) and give them `edit`. Admins may
   * set a rule on any path, one with no pages yet included.
   */
  private assertManages(workspace: WorkspaceRow, role: EffectiveRole, vis: PageVisibility, path: string): void {
    if (bypasses(role)) return;
    const exists = this.file ? this.file.exists(workspace.id, path) : true;
    if (!exists || !vis.sees(path)) throw new NotFoundError("Page not found");
    if (!vis.allows(path, "edit")) throw new ForbiddenError("This page's access list does not give you edit access");
  }

  /**
   * "Anyone with the link" is the admins' to allow or take away, even where editors manage access
   * (docs/decisions/restricted-folders.md, "Share links"). What a link allows at the path (FULL where
   * no rule lies on it) must stay as it was when the path is restricted before and after an
   * editor's change: adding, changing or dropping the rule's `link:anyone` entry, a new rule below
   * one that allows it without repeating it, and lifting a rule so that the allowance above reaches
   * the path again are all refused. An editor's new restriction of an open path must not allow it;
   * lifting the last rule on a path opens it to every member, links with it, as before. (Below the
   * path it follows: a link's level is the minimum along the way.)
   */
  private assertKeepsLinkAllowance(workspace: WorkspaceRow, path: string, next: RuleSet): void {
    const before = linkLevel(this.load(workspace).compiled, path);
    const after = linkLevel(compile(next), path);
    const kept = after === FULL || (before === FULL ? after === HIDDEN : after === before);
    if (!kept) throw new ForbiddenError(`Only an admin may allow or remove ${LINK_ANYONE} (anyone with a share link)`);
  }

  /** One rule set to `raw` (or lifted), checked against the whole rule set; throws what is wrong. */
  private planChange(workspace: WorkspaceRow, path: string, raw: readonly { who: string; level: string }[]) {
    const loaded = this.load(workspace);
    const before = loaded.rules.get(path) ?? null;
    const members = this.store.members(workspace.id, workspace.org_id);
    const entries = raw.length === 0 ? null : checkEntries(raw, members, before ?? undefined);
    const next: RuleSet = new Map(loaded.rules);
    if (entries) next.set(path, entries);
    else next.delete(path);
    if (next.size > MAX_RULES) throw new ValidationError(`path: at most ${MAX_RULES} restricted folders and pages in a workspace`, "path");
    const problem = findDuplicateKey(next) ?? findWidening(next, members);
    if (problem) throw new ValidationError(problem, "entries");
    return { before, entries, next };
  }

  /** The caller's view of one folder or page: the rule that governs it and their level there. */
  effective(principal: Principal, ref: string, query: unknown) {
    const { path: raw } = parseInput(effectiveAccessQuery, query);
    const { workspace, role } = this.deps.permissions.require(principal, toRef(ref), "viewer");
    const path = ruleKey(raw);
    const email = this.deps.users.byId(principal.userId)?.email_normalized ?? "";
    const vis = this.visibility(workspace, email, role);
    // A hidden path answers as a missing one, and both are looked up: the same queries either way.
    const exists = this.file ? this.file.exists(workspace.id, path) : true;
    if (!exists || !vis.sees(path)) throw new NotFoundError("Page not found");
    return this.effectiveFor(workspace, role, email, path);
  }

  private effectiveFor(workspace: WorkspaceRow, role: EffectiveRole, email: string, path: string) {
    const { rules } = this.load(workspace);
    const byMatch = new Map([...rules].map(([k, v]) => [matchKey(k), { key: k, entries: v }]));
    const chain = [...ancestorKeys(matchKey(path)), matchKey(path)];
    let from: { key: string; entries: AccessEntry[] } | null = null;
    for (const key of chain) from = byMatch.get(key) ?? from;
    const vis = this.visibility(workspace, email, role);
    const rank = vis instanceof RestrictedVisibility ? vis.level(path) : FULL;
    const level = levelName(rank) ?? "view";
    return { path, restricted: from !== null, entries: from?.entries ?? [], from: from?.key ?? null, level: capByRole(level, role) };
  }

  // ---- the file ---------------------------------------------------------------------------------

  /**
   * A `.quire/access.yaml` that arrived from git or changed on disk: validated like the API's input;
   * valid → the rules (with an audit entry per changed rule); invalid → refused, recorded, and the
   * last valid rules stay. Returns the refusal, or null. A file removed while rules exist is refused
   * too: lifting every restriction is written as `restricted: {}`, never by accident.
   */
  applyFile(workspace: WorkspaceRow): string | null {
    const loaded = this.load(workspace);
    return this.applyText(workspace, loaded.rules, this.file?.read(workspace.id) ?? null);
  }

  /** Why the last file from git was refused (null: it was not). */
  refusal(workspaceId: string): string | null {
    return this.store.refusal(workspaceId);
  }

  /** Forgets what is kept of a workspace (deleted, or its database rows changed underneath). */
  forget(workspaceId: string): void {
    this.loaded.delete(workspaceId);
  }

  private applyText(workspace: WorkspaceRow, current: RuleSet, text: string | null, firstReading = false): string | null {
    const now = nowIso();
    if (text === null && current.size === 0) return null;
    if (text !== null && text === serializeRules(current)) {
      this.store.setRefusal(workspace.id, null, now);
      return null;
    }
    const parsed =
      text === null
        ? { problem: "the file was removed; to lift every restriction write `restricted: {}`" }
        : parseRulesFile(text, this.store.members(workspace.id, workspace.org_id), current, firstReading && current.size === 0);
    if ("problem" in parsed) {
      const problem = `.quire/access.yaml refused: ${parsed.problem}; the last valid rules stay in force`;
      this.store.setRefusal(workspace.id, problem, now);
      return problem;
    }
    const next = parsed.rules;
    this.deps.db.transaction(() => {
      this.store.replaceAll(workspace.id, next, now);
      this.store.setRefusal(workspace.id, null, now);
      for (const path of new Set([...current.keys(), ...next.keys()])) {
        const a = current.get(path) ?? null;
        const b = next.get(path) ?? null;
        if (JSON.stringify(a) !== JSON.stringify(b)) this.audit(workspace.id, null, "git", path, a, b, now);
      }
    })();
    this.replace(workspace.id, next);
    return null;
  }

  private load(workspace: WorkspaceRow): Loaded {
    const kept = this.loaded.get(workspace.id);
    if (kept) return kept;
    const rules = this.store.load(workspace.id);
    this.replace(workspace.id, rules);
    // The first use in this process: a file changed while no server ran (a clone, a rebuild, an
    // edit) is taken now, checked like one from git.
    if (this.file) this.applyText(workspace, rules, this.file.read(workspace.id), true);
    return this.loaded.get(workspace.id)!;
  }

  private replace(workspaceId: string, rules: RuleSet): void {
    const compiled = compile(rules);
    const had = this.loaded.has(workspaceId);
    this.loaded.set(workspaceId, { rules, compiled, keys: new Set(compiled.keys()), people: new Map() });
    if (had) for (const hook of this.changedHooks) hook(workspaceId);
  }

  private audit(workspaceId: string, actorId: string | null, actorName: string, path: string, from: AccessEntry[] | null, to: AccessEntry[] | null, now: string): void {
    this.deps.db
      .query(
        `INSERT INTO activity (id, workspace_id, action, actor_id, actor_name, page_id, page_path, details, created_at)
         VALUES (?, ?, 'access_changed', ?, ?, NULL, ?, ?, ?)`,
      )
      .run(ulid(), workspaceId, actorId, actorName, path, JSON.stringify({ from, to, source: actorId === null ? "git" : "api" }), now);
  }

  /**
   * Quire's rights do not reach the git remote: whoever can clone it reads every page. A remote
   * whose host's public API lists it is public and refused; otherwise the admin must confirm the
   * remote is private (docs/decisions/restricted-folders.md).
   */
  private async assertRemoteMayHide(remote: string, confirmed: boolean): Promise<void> {
    this.remotes ??= this.deps.remotes ?? new RemoteVisibility();
    if (await this.remotes.knownPublic(remote)) {
      throw new ValidationError("This workspace's git remote is public: anyone can clone every page, so a restriction would hide nothing", "path");
    }
    if (!confirmed) {
      throw new ValidationError(
        "Anyone who can clone this workspace's git remote sees every page. Confirm the remote is private with confirm_private_remote: true",
        "confirm_private_remote",
      );
    }
  }
}

/** Rules keyed as the visibility reads them (matchKey). */
function compile(rules: RuleSet): Map<string, readonly AccessEntry[]> {
  const compiled = new Map<string, readonly AccessEntry[]>();
  for (const [key, entries] of rules) compiled.set(matchKey(key), entries);
  return compiled;
}

const toRef = (ref: string) => (isUlid(ref) ? { id: ref } : { slug: ref });

function capByRole(level: "view" | "comment" | "edit", role: EffectiveRole): "view" | "comment" | "edit" {
  const order = ["view", "comment", "edit"] as const;
  const cap = bypasses(role) || role === "editor" ? 2 : role === "commenter" ? 1 : 0;
  return order[Math.min(order.indexOf(level), cap)]!;
}

