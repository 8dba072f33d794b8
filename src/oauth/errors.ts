/**
 * An OAuth protocol error. The `/oauth/*` endpoints answer in OAuth's own format (RFC 6749 §5.2:
 * `{error, error_description}`), which every OAuth client parses, not in the API's error shape;
 * so these are not AppErrors and only the OAuth routes map them (docs/decisions/mcp-authorization.md).
 */
type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "invalid_scope"
  | "invalid_target"
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  | "access_denied";

export class OAuthProtocolError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}
