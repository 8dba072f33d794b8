import type { z } from "zod";
import type { DOMAIN_STATUSES, customDomainOutput } from "./schemas.ts";
/**
 * Custom domains (docs/architecture.md §9): an admin names a host, Quire answers with a TXT record to create
 * (`_quire-challenge.{domain}` = a random token), and verification looks that record up. Only a
 * verified domain is served; a request whose Host names anything else gets nothing from it.
 * The DNS server asked is the system's, or CUSTOM_DOMAIN_RESOLVER (tests point it at a DNS
 * server on loopback).
 */
import { randomBytes } from "node:crypto";
import { Resolver } from "node:dns/promises";
import type { Db } from "../db/database.ts";
import { nowIso } from "../core/clock.ts";

type DomainStatus = (typeof DOMAIN_STATUSES)[number];

interface DomainRow {
  workspace_id: string;
  domain: string;
  token: string;
  status: DomainStatus;
  last_error: string | null;
  checked_at: string | null;
  verified_at: string | null;
  created_at: string;
}

/** A custom domain as answered: the documented output schema's type. */
export type CustomDomainJson = z.infer<typeof customDomainOutput>;

const CHALLENGE_PREFIX = "_quire-challenge.";
const LOOKUP_TIMEOUT_MS = 3000;

export function domainJson(row: DomainRow): CustomDomainJson {
  return {
    domain: row.domain,
    status: row.status,
    verification: { type: "TXT", name: `${CHALLENGE_PREFIX}${row.domain}`, value: row.token },
    checked_at: row.checked_at,
    verified_at: row.verified_at,
    error: row.last_error,
  };
}

/** A Host header as a bare lowercase host name: port and trailing dot removed; null when it is not a plausible name. */
export function hostName(header: string | null): string | null {
  if (!header) return null;
  let host = header.trim().toLowerCase();
  if (host.startsWith("[")) return null; // an IPv6 literal is never a custom domain
  host = host.replace(/:\d+$/, "").replace(/\.$/, "");
  return /^[a-z0-9.-]{1,253}$/.test(host) ? host : null;
}

export class CustomDomains {
  constructor(
    private readonly db: Db,
    private readonly dnsServer?: string,
  ) {}

  /**
   * A fresh resolver per check: one resolver remembers an answer (a "not found" too), and the
   * admin who just created the record and presses "Verify" again must get a new lookup.
   */
  private resolver(): Resolver {
    const resolver = new Resolver({ timeout: LOOKUP_TIMEOUT_MS, tries: 2 });
    if (this.dnsServer) resolver.setServers([this.dnsServer]);
    return resolver;
  }

  of(workspaceId: string): DomainRow | null {
    return this.db.query<DomainRow, [string]>("SELECT * FROM custom_domains WHERE workspace_id = ?").get(workspaceId);
  }

  byDomain(domain: string): DomainRow | null {
    return this.db.query<DomainRow, [string]>("SELECT * FROM custom_domains WHERE domain = ?").get(domain);
  }

  /** The workspace a verified domain serves; null for any host that is not a verified domain. */
  verifiedWorkspace(host: string): string | null {
    const row = this.byDomain(host);
    return row && row.status === "verified" ? row.workspace_id : null;
  }

  /** Sets (or replaces) the domain; a new domain starts pending with a fresh token. Call inside a transaction. */
  set(workspaceId: string, domain: string): DomainRow {
    const current = this.of(workspaceId);
    if (current?.domain === domain) return current;
    this.db.query("DELETE FROM custom_domains WHERE workspace_id = ?").run(workspaceId);
    this.db
      .query("INSERT INTO custom_domains (workspace_id, domain, token, status, created_at) VALUES (?, ?, ?, 'pending', ?)")
      .run(workspaceId, domain, `quire-verify=${randomBytes(16).toString("hex")}`, nowIso());
    return this.of(workspaceId)!;
  }

  remove(workspaceId: string): boolean {
    return this.db.query("DELETE FROM custom_domains WHERE workspace_id = ?").run(workspaceId).changes > 0;
  }

  /** Looks the TXT record up and records the outcome. */
  async verify(workspaceId: string): Promise<DomainRow | null> {
    const row = this.of(workspaceId);
    if (!row) return null;
    let found = false;
    let error: string | null = null;
    try {
      const records = await this.resolver().resolveTxt(`${CHALLENGE_PREFIX}${row.domain}`);
      found = records.some((chunks) => chunks.join("") === row.token);
      if (!found) error = `The TXT record ${CHALLENGE_PREFIX}${row.domain} does not hold the expected value`;
    } catch (e) {
      const code = (e as { code?: string }).code;
      error =
        code === "ENOTFOUND" || code === "ENODATA"
          ? `No TXT record found at ${CHALLENGE_PREFIX}${row.domain}`
          : `The DNS lookup failed (${code ?? "error"}); try again later`;
    }
    const now = nowIso();
    // A verified domain stays served when a later re-check fails (a DNS hiccup must not take a site
    // down); the error is shown. The row may have been replaced meanwhile: only the same domain's row is updated.
    this.db
      .query("UPDATE custom_domains SET status = ?, last_error = ?, checked_at = ?, verified_at = CASE WHEN ? THEN ? ELSE verified_at END WHERE workspace_id = ? AND domain = ?")
      .run(found || row.status === "verified" ? "verified" : "failed", error, now, found ? 1 : 0, now, workspaceId, row.domain);
    return this.of(workspaceId);
  }
}
