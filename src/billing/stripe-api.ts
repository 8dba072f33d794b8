/**
 * The few calls Quire makes to Stripe's REST API: form-encoded POSTs with the secret key as a
 * Bearer token. Stripe answers errors with 4xx/5xx and `{error: {type, code, message}}`; they
 * become 503 SERVICE_UNAVAILABLE to the caller (the payment provider refused or did not answer),
 * carrying Stripe's type and code. The key is never put in a message or a log line.
 */
import { ServiceUnavailableError } from "../core/errors.ts";

const TIMEOUT_MS = 15_000;

export class StripeApi {
  constructor(
    private readonly apiUrl: string,
    private readonly secretKey: string,
  ) {}

  /** POST `path` with `fields` form-encoded; returns the created object (Checkout and portal sessions both carry `url`). */
  async post(path: string, fields: Array<[string, string]>): Promise<{ id: string; url: string }> {
    let res: Response;
    try {
      res = await fetch(this.apiUrl + path, {
        method: "POST",
        headers: {
          authorization: `Bearer ${this.secretKey}`,
          "content-type": "application/x-www-form-urlencoded",
          "stripe-version": "2024-06-20",
        },
        body: new URLSearchParams(fields).toString(),
        redirect: "error",
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch {
      throw new ServiceUnavailableError("The payment provider could not be reached; try again in a moment");
    }
    let json: unknown;
    try {
      json = await res.json();
    } catch {
      json = null;
    }
    if (!res.ok) {
      const err = (json as { error?: { type?: unknown; code?: unknown; message?: unknown } } | null)?.error;
      const type = typeof err?.type === "string" ? err.type : "api_error";
      const code = typeof err?.code === "string" ? err.code : undefined;
      // An authentication error's message quotes part of the key: say it plainly instead.
      const said =
        type === "authentication_error" || res.status === 401
          ? "the payment provider refused this instance's STRIPE_SECRET_KEY"
          : typeof err?.message === "string"
            ? err.message.slice(0, 500)
            : `HTTP ${res.status}`;
      throw new ServiceUnavailableError(`The payment provider refused the request: ${said}`, {
        provider_status: res.status,
        provider_type: type,
        ...(code ? { provider_code: code } : {}),
      });
    }
    const obj = json as { id?: unknown; url?: unknown } | null;
    if (typeof obj?.url !== "string" || !/^https?:\/\//.test(obj.url) || typeof obj.id !== "string") {
      throw new ServiceUnavailableError("The payment provider answered without a session address");
    }
    return { id: obj.id, url: obj.url };
  }
}
