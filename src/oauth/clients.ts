import type { Db } from "../db/database.ts";
import { randomToken } from "../core/ids.ts";
import { isoFromMs } from "../core/clock.ts";
import { OAuthProtocolError } from "./errors.ts";
import { checkRedirectUri } from "./redirect-uris.ts";
import { ClientMetadataDocuments, type ClientInfo } from "./client-metadata.ts";
import { registerInput, type registrationOutput } from "./schemas.ts";
import type { z } from "zod";

/** Registered client ids carry a prefix so they can never be mistaken for a metadata document URL. */
const CLIENT_ID_PREFIX = "quire_client_";
/** Registrations are unauthenticated (RFC 7591 open registration); this bounds what one can store. */
const MAX_REDIRECT_URIS = 20;

/**
 * Who a client is: a client_id that is an https URL is a Client ID Metadata Document (fetched,
 * client-metadata.ts); any other is one registered here by Dynamic Client Registration. Only
 * public clients exist (PKCE instead of a secret), as every MCP client is one.
 */
export class OAuthClients {
  constructor(
    private readonly db: Db,
    private readonly documents: ClientMetadataDocuments,
  ) {}

  async resolve(clientId: string, nowMs: number): Promise<ClientInfo> {
    if (ClientMetadataDocuments.isDocumentUrl(clientId)) return this.documents.resolve(clientId, nowMs);
    const row = this.db
      .query<{ client_id: string; client_name: string; redirect_uris: string }, [string]>("SELECT client_id, client_name, redirect_uris FROM oauth_clients WHERE client_id = ?")
      .get(clientId);
    if (!row) throw new OAuthProtocolError("invalid_client", "unknown client_id");
    return { client_id: row.client_id, client_name: row.client_name, redirect_uris: JSON.parse(row.redirect_uris) as string[], metadata_document: false };
  }

  register(body: unknown, nowMs: number): z.infer<typeof registrationOutput> {
    const parsed = registerInput.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new OAuthProtocolError("invalid_client_metadata", `${issue.path.join(".") || "body"}: ${issue.message}`);
    }
    const input = parsed.data;
    const redirectUris = input.redirect_uris.slice(0, MAX_REDIRECT_URIS).map((u) => checkRedirectUri(u));
    // A confidential token_endpoint_auth_method asked for is answered with "none" (RFC 7591
    // §3.2.1 lets the server replace metadata); a client that needs a secret sees it and stops.
    if (input.grant_types && input.grant_types.some((g) => g !== "authorization_code" && g !== "refresh_token")) {
      throw new OAuthProtocolError("invalid_client_metadata", "grant_types: only authorization_code and refresh_token are supported");
    }
    if (input.response_types && input.response_types.some((r) => r !== "code")) {
      throw new OAuthProtocolError("invalid_client_metadata", "response_types: only code is supported");
    }
    const clientId = `${CLIENT_ID_PREFIX}${randomToken(18)}`;
    const name = input.client_name?.trim() || new URL(redirectUris[0]!).host;
    this.db
      .query("INSERT INTO oauth_clients (client_id, client_name, redirect_uris, created_at) VALUES (?, ?, ?, ?)")
      .run(clientId, name, JSON.stringify(redirectUris), isoFromMs(nowMs));
    return {
      client_id: clientId,
      client_id_issued_at: Math.floor(nowMs / 1000),
      client_name: name,
      redirect_uris: redirectUris,
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    };
  }
}
