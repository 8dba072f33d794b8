import type { Db } from "../db/database.ts";
import type { Config } from "../config.ts";
import { ConflictError, NotFoundError, SignupDisabledError, UnauthorizedError } from "../core/errors.ts";
import { ulid } from "../core/ids.ts";
import { isoFromMs, nowMs } from "../core/clock.ts";
import { parseInput } from "../core/validate.ts";
import type { AccessTokens } from "./access-tokens.ts";
import { ACCESS_TOKEN_TTL_SEC } from "./access-tokens.ts";
import { checkPasswordRules, type PasswordHasher } from "./passwords.ts";
import type { Sessions, SessionJson } from "./sessions.ts";
import { isDuplicateEmailError, toUserJson, type UserJson, type UserRow, type Users } from "./users.ts";
import type { Organizations } from "./organizations.ts";
import { loginInput, registerInput } from "./schemas.ts";
import { checkPasswordWithLockout, INVALID_CREDENTIALS } from "./password-check.ts";
import type { WorkspaceRecords, WorkspaceRow } from "../workspaces/workspace-records.ts";
import { handleFrom } from "./organizations.ts";

export interface ClientInfo {
  ip: string;
  device: string;
}

export interface IssuedTokens {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  /** Access token expiry, ISO 8601. */
  expires_at: string;
  session_id: string;
}

type WorkspaceCreatedHook = (workspace: WorkspaceRow, actorUserId: string) => Promise<void> | void;

export class AuthService {
  /** Called after a starter workspace exists (the content ledger fills it with example pages). */
  readonly starterWorkspaceHooks: WorkspaceCreatedHook[] = [];

  constructor(
    private readonly deps: {
      db: Db;
      config: Config;
      users: Users;
      organizations: Organizations;
      sessions: Sessions;
      tokens: AccessTokens;
      passwords: PasswordHasher;
      workspaces: WorkspaceRecords;
    },
  ) {}

  async register(
    body: unknown,
    client: ClientInfo,
  ): Promise<{ user: UserJson; tokens: IssuedTokens | null }> {
    const { config, users } = this.deps;
    if (config.disableSignup) throw new SignupDisabledError();
    const input = parseInput(registerInput, body);
    const password = checkPasswordRules(input.password);
    if (users.byEmail(input.email)) throw new ConflictError("An account with this email already exists", undefined, { field: "email" });
    const passwordHash = await this.deps.passwords.hash(password);
    const user = await this.createAccount({ name: input.name, email: input.email, passwordHash, emailVerified: false, starter: true });
    let tokens: IssuedTokens | null = null;
    try {
      tokens = await this.signIn(user, client);
    } catch {
      tokens = null; // docs/interfaces.md §2: the account exists; the client signs in separately
    }
    return { user: toUserJson(user), tokens };
  }

  /**
   * Creates an account with its own organization (docs/interfaces.md §3): registration and a first external
   * sign-in both come here. `starter`: also a starter workspace with example pages (an account
   * made to join invited workspaces gets none, as an accepted invitation does). `inside` runs in
   * the same transaction, after the user row exists (an external identity is linked there).
   * A duplicate email is a CONFLICT.
   */
  async createAccount(input: {
    name: string;
    email: string;
    passwordHash: string | null;
    emailVerified: boolean;
    starter: boolean;
    inside?: (userId: string, now: string) => void;
  }): Promise<UserRow> {
    const { db, users, organizations, workspaces } = this.deps;
    const now = isoFromMs(nowMs());
    const userId = ulid();
    let starter: WorkspaceRow | null;
    try {
      starter = db.transaction(() => {
        users.insert({ id: userId, name: input.name, email: input.email, passwordHash: input.passwordHash, now });
        if (input.emailVerified) db.query("UPDATE users SET email_verified = 1 WHERE id = ?").run(userId);
        // The instance's first user adopts the default organization `quire init` made (its
        // workspaces become theirs) instead of getting a second, empty one.
        const adopted = organizations.settleDefaultOwner(now);
        const org = adopted?.owner_id === userId ? adopted : organizations.createOwned({ name: input.name, ownerId: userId, now });
        input.inside?.(userId, now);
        if (!input.starter) return null;
        const ws = workspaces.insert({
          orgId: org.id,
          name: `${input.name}'s docs`,
          slug: this.freeWorkspaceSlug(`${handleFrom(input.name)}-docs`),
          description: "Your first workspace",
          createdBy: userId,
          now,
        });
        db.query("INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (?, ?, 'admin', ?)").run(
          ws.id,
          userId,
          now,
        );
        return ws;
      })();
    } catch (error) {
      // Two registrations racing for one address: the unique index decides.
      if (isDuplicateEmailError(error)) {
        throw new ConflictError("An account with this email already exists", undefined, { field: "email" });
      }
      throw error;
    }
    if (starter) for (const hook of this.starterWorkspaceHooks) await hook(starter, userId);
    return users.byId(userId)!;
  }

  freeWorkspaceSlug(base: string): string {
    const stem = base.slice(0, 56).replace(/-+$/, "") || "docs";
    let slug = stem;
    for (let i = 2; this.deps.workspaces.slugTaken(slug); i++) slug = `${stem}-${i}`;
    return slug;
  }

  async login(body: unknown, client: ClientInfo): Promise<IssuedTokens> {
    const { users, passwords, config } = this.deps;
    const input = parseInput(loginInput, body);
    const user = await checkPasswordWithLockout({ users, passwords, lock: config.loginLock }, users.byEmail(input.email), input.password);
    // Instances initialised before the default organization had an owner: settle it now (a no-op
    // read once it is owned), so the first user reaches the `quire init` workspaces.
    this.deps.db.transaction(() => this.deps.organizations.settleDefaultOwner(isoFromMs(nowMs())))();
    return this.signIn(user, client);
  }

  /** Starts a session for a user whose identity is already proven. */
  async signIn(user: UserRow, client: ClientInfo): Promise<IssuedTokens> {
    const org = this.deps.organizations.homeOf(user.id);
    if (!org) throw new UnauthorizedError(INVALID_CREDENTIALS);
    const { session, refreshToken } = this.deps.sessions.create({
      userId: user.id,
      orgId: org.id,
      device: client.device,
      ip: client.ip,
      nowMs: nowMs(),
    });
    return this.tokensFor(session.id, user.id, org.id, refreshToken);
  }

  async refresh(refreshToken: string | undefined, client: ClientInfo): Promise<IssuedTokens> {
    if (!refreshToken) throw new UnauthorizedError("Refresh token required");
    const result = this.deps.sessions.rotate(refreshToken, { ip: client.ip, nowMs: nowMs() });
    if (result.kind !== "rotated") throw new UnauthorizedError("Invalid or expired refresh token");
    const { session } = result;
    return this.tokensFor(session.id, session.user_id, session.org_id, result.refreshToken);
  }

  private async tokensFor(sessionId: string, userId: string, orgId: string, refreshToken: string): Promise<IssuedTokens> {
    const { token, expiresAt } = await this.deps.tokens.issue({ userId, sessionId, orgId });
    return {
      access_token: token,
      refresh_token: refreshToken,
      expires_in: ACCESS_TOKEN_TTL_SEC,
      expires_at: isoFromMs(expiresAt * 1000),
      session_id: sessionId,
    };
  }

  logout(userId: string): void {
    this.deps.sessions.revokeAllOf(userId);
  }

  me(userId: string): UserJson {
    const user = this.deps.users.byId(userId);
    if (!user) throw new NotFoundError("User not found");
    return toUserJson(user);
  }

  sessions(userId: string, currentSessionId: string | null): SessionJson[] {
    return this.deps.sessions.list(userId, currentSessionId, nowMs());
  }

  async wsToken(userId: string, sessionId: string, orgId: string): Promise<{ token: string; expiresAt: number }> {
    return this.deps.tokens.issueWs({ userId, sessionId, orgId });
  }
}
