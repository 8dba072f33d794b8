import { randomBytes } from "node:crypto";
import type { Db } from "../db/database.ts";
import { ConflictError, ValidationError } from "../core/errors.ts";
import { nowIso } from "../core/clock.ts";
import { parseInput } from "../core/validate.ts";
import type { Principal } from "../core/principal.ts";
import type { Permissions } from "./permissions.ts";
import type { WorkspaceRecords, WorkspaceRow } from "../workspaces/workspace-records.ts";
import { SETTINGS_COLUMNS, workspaceOptionsJson, workspaceRef } from "../workspaces/workspace-records.ts";
import {
  READ_ONLY_SETTINGS,
  THEMES,
  VISIBILITIES,
  updateSettingsInput,
  type SettingsOutput,
  type Theme,
  type Visibility,
} from "../workspaces/workspace-schemas.ts";
import { hasGitToken, writeGitToken } from "../workspaces/remote-token.ts";
import { editorsManageAccess } from "../workspaces/rights.ts";

/** The part of the settings kept as JSON in `workspaces.settings` (the rest are columns). */
export interface StoredSettings {
  theme: Theme;
  visibility: Visibility;
  navigation: Record<string, unknown>;
  custom_domain: string | null;
  /** Editors with `edit` on a folder or page may set its access list (off unless an admin turns it on). */
  editors_manage_access: boolean;
}

/** The settings as answered: the documented output schema's type, so the two cannot differ. */
type SettingsJson = SettingsOutput;

const JSON_KEYS = ["theme", "visibility", "navigation", "custom_domain", "editors_manage_access"] as const;
const EDITABLE_KEYS: readonly string[] = [...SETTINGS_COLUMNS, ...JSON_KEYS, "git_token"];

/**
 * The JSON settings of a workspace with defaults filled in. Other domains (the published site,
 * the theme tools) read theme, visibility, navigation and custom domain through this. Values that
 * are unreadable or unknown fall back to the default rather than breaking a site.
 */
export function readSettings(row: Pick<WorkspaceRow, "settings">): StoredSettings {
  const raw = rawSettings(row);
  const theme = (THEMES as readonly string[]).includes(raw.theme as string) ? (raw.theme as Theme) : "default";
  const visibility = (VISIBILITIES as readonly string[]).includes(raw.visibility as string) ? (raw.visibility as Visibility) : "authenticated";
  const navigation =
    raw.navigation && typeof raw.navigation === "object" && !Array.isArray(raw.navigation)
      ? (raw.navigation as Record<string, unknown>)
      : {};
  const custom_domain = typeof raw.custom_domain === "string" ? raw.custom_domain : null;
  return { theme, visibility, navigation, custom_domain, editors_manage_access: editorsManageAccess(row) };
}

/** The settings JSON as stored, including keys other domains may keep there (never dropped on update). */
function rawSettings(row: Pick<WorkspaceRow, "settings">): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(row.settings);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // unreadable JSON: start again from defaults
  }
  return {};
}

type SettingsChangedHook = (workspace: WorkspaceRow, changedKeys: string[]) => void;

/** Admin settings of a workspace: read, merge-update, and the inbound webhook secret. */
export class WorkspaceSettings {
  /** Called after a settings change is committed (the git sync manager re-reads branch and interval). */
  readonly changedHooks: SettingsChangedHook[] = [];

  constructor(
    private readonly deps: { db: Db; records: WorkspaceRecords; permissions: Permissions; baseUrl: string },
  ) {}

  get(principal: Principal, ref: string): SettingsJson {
    const { workspace } = this.deps.permissions.require(principal, workspaceRef(ref), "admin");
    return this.toJson(workspace);
  }

  update(principal: Principal, ref: string, body: unknown): SettingsJson {
    const { db, records, permissions } = this.deps;
    const { workspace } = permissions.require(principal, workspaceRef(ref), "admin");
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      throw new ValidationError("The body must be a JSON object of settings", "body");
    }
    for (const key of Object.keys(body)) {
      if ((READ_ONLY_SETTINGS as readonly string[]).includes(key)) {
        throw new ValidationError(
          key === "webhook_secret"
            ? "webhook_secret is read-only; regenerate it with POST .../admin/settings/webhook-secret/regenerate"
            : `${key} is read-only`,
          key,
        );
      }
      if (!EDITABLE_KEYS.includes(key)) throw new ValidationError(`${key} is not a workspace setting`, key);
    }
    const input = parseInput(updateSettingsInput, body);
    const changed = Object.keys(input).filter((k) => (input as Record<string, unknown>)[k] !== undefined);

    const updated = db.transaction(() => {
      const current = records.byId(workspace.id);
      if (!current) return null;
      const columns: Record<string, string | number> = {};
      for (const key of SETTINGS_COLUMNS) {
        const value = input[key];
        if (value === undefined) continue;
        columns[key] = typeof value === "boolean" ? (value ? 1 : 0) : value;
      }
      const stored = rawSettings(current);
      let jsonChanged = false;
      for (const key of JSON_KEYS) {
        if (input[key] === undefined) continue;
        stored[key] = input[key];
        jsonChanged = true;
      }
      if (jsonChanged) {
        const domain = input.custom_domain;
        if (typeof domain === "string" && this.domainTaken(domain, workspace.id)) {
          throw new ConflictError("Another workspace already uses this custom domain", undefined, { field: "custom_domain" });
        }
        columns.settings = JSON.stringify(stored);
      }
      if (input.git_token !== undefined) writeGitToken(db, workspace.id, input.git_token, nowIso());
      records.update(workspace.id, columns, nowIso());
      return records.byId(workspace.id);
    })();
    if (!updated) return this.toJson(workspace);
    if (changed.length > 0) for (const hook of this.changedHooks) hook(updated, changed);
    return this.toJson(updated);
  }

  /** Replaces the inbound git webhook secret; the old one stops working at once. */
  regenerateWebhookSecret(principal: Principal, ref: string): SettingsJson {
    const { records, permissions } = this.deps;
    const { workspace } = permissions.require(principal, workspaceRef(ref), "admin");
    records.update(workspace.id, { webhook_secret: randomBytes(32).toString("hex") }, nowIso());
    return this.toJson(records.byId(workspace.id) ?? workspace);
  }

  private domainTaken(domain: string, exceptId: string): boolean {
    return (
      this.deps.db
        .query("SELECT 1 FROM workspaces WHERE deleted_at IS NULL AND id <> ? AND json_extract(settings, '$.custom_domain') = ?")
        .get(exceptId, domain) !== null
    );
  }

  private toJson(row: WorkspaceRow): SettingsJson {
    const stored = readSettings(row);
    return {
      id: row.id,
      slug: row.slug,
      name: row.name,
      description: row.description,
      published: row.published === 1,
      ...workspaceOptionsJson(row),
      ...stored,
      webhook_secret: row.webhook_secret,
      webhook_url: `${this.deps.baseUrl}/api/git/webhook/${row.id}`,
      git_token_set: hasGitToken(this.deps.db, row.id),
    };
  }
}
