import { RemoteNetwork } from "../core/net/remote-network.ts";
import { RemoteError } from "../core/net/remote-error.ts";

/** Why talking to an identity provider failed; never carries a token or secret. */
export class ProviderError extends Error {
  constructor(
    message: string,
    /** What the person is told (a code the app turns into a sentence). */
    readonly reason: "provider_error" | "private_network" | "unreachable" = "provider_error",
  ) {
    super(message);
  }
}

/** Requests to a provider give up after this long: a hanging issuer must not hold a sign-in forever. */
const PROVIDER_TIMEOUT_MS = 10_000;

/**
 * fetch for identity providers, with the same outbound checks as git remotes: before every
 * request the host is resolved and every address must be public, unless OIDC_ALLOWLIST_PRIVATE
 * allows private and loopback ones (an issuer inside the company network, tests on loopback).
 * Redirects are never followed (OAuth endpoints do not redirect; a redirect to an internal address
 * would otherwise slip past the check).
 */
export function guardedFetch(allowPrivate: boolean): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  const network = new RemoteNetwork(allowPrivate);
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.protocol !== "https:" && !(allowPrivate && url.protocol === "http:")) {
      throw new ProviderError(`refused a non-https provider URL (${url.origin})`);
    }
    try {
      await network.resolve(url.hostname);
    } catch (error) {
      if (error instanceof RemoteError && error.reason === "private_network") {
        throw new ProviderError(`${url.host} is on a private, loopback or link-local address (set OIDC_ALLOWLIST_PRIVATE=true to allow it)`, "private_network");
      }
      if (error instanceof RemoteError) throw new ProviderError(`${url.host}: ${error.message}`, "unreachable");
      throw error;
    }
    const signal = init?.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(PROVIDER_TIMEOUT_MS)]) : AbortSignal.timeout(PROVIDER_TIMEOUT_MS);
    return fetch(input, { ...init, redirect: "manual", signal });
  };
}
