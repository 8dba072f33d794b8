/**
 * The one way the browser talks to the API. The access token lives only in this module's memory;
 * the refresh token is an HttpOnly cookie the browser sends to /api/auth/refresh, so a reload or an
 * expired access token renews silently. Errors keep the API's shape (code, message, details).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> | undefined,
    readonly body: Record<string, unknown>,
  ) {
    super(message);
  }
  get field(): string | undefined {
    const f = this.details?.field;
    return typeof f === "string" ? f : undefined;
  }
}

let accessToken: string | null = null;
let refreshing: Promise<boolean> | null = null;
const expiredListeners = new Set<() => void>();

export function setAccessToken(token: string | null): void {
  accessToken = token;
}
/** Called when the session cannot be renewed any more (signed out elsewhere, refresh expired). */
export function onSessionExpired(listener: () => void): () => void {
  expiredListeners.add(listener);
  return () => expiredListeners.delete(listener);
}

/**
 * One refresh for every tab of this browser. Tabs share the refresh cookie, and a tab restored
 * together with others would otherwise trade the same cookie at the same moment as they do. The
 * tab holding the Web Lock refreshes and hands the access token to the others over a
 * BroadcastChannel (same origin only); a tab that waited for the lock takes a token handed over
 * while it waited instead of refreshing again. The server's grace window
 * (docs/decisions/session-grace-window.md) covers browsers without Web Locks.
 */
const REFRESH_LOCK = "quire.refresh";
const channel: BroadcastChannel | null = typeof BroadcastChannel === "function" ? new BroadcastChannel("quire.session") : null;
let handedOver: { token: string; at: number } | null = null;
channel?.addEventListener("message", (e: MessageEvent) => {
  const data = e.data as { type?: string; access_token?: string } | null;
  if (data?.type === "refreshed" && typeof data.access_token === "string") {
    handedOver = { token: data.access_token, at: performance.now() };
    accessToken = data.access_token;
  } else if (data?.type === "signed-out") {
    accessToken = null;
  }
});

/** Tells the other tabs that this browser signed out (their next request goes to the login screen). */
export function announceSignedOut(): void {
  channel?.postMessage({ type: "signed-out" });
}

async function refreshNow(): Promise<boolean> {
  try {
    const res = await fetch("/api/auth/refresh", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
      credentials: "same-origin",
    });
    if (!res.ok) {
      accessToken = null;
      return false;
    }
    const body = (await res.json()) as { access_token: string };
    accessToken = body.access_token;
    channel?.postMessage({ type: "refreshed", access_token: body.access_token });
    return true;
  } catch {
    return false;
  }
}

/** Renews the access token from the refresh cookie; concurrent callers (and tabs) share one request. */
export function refreshSession(): Promise<boolean> {
  refreshing ??= (async () => {
    const asked = performance.now();
    try {
      const locks = typeof navigator !== "undefined" ? navigator.locks : undefined;
      if (!locks) return await refreshNow();
      return await locks.request(REFRESH_LOCK, async () => {
        // Another tab refreshed while this one waited for the lock: its token is ours too.
        if (handedOver && handedOver.at >= asked) {
          accessToken = handedOver.token;
          return true;
        }
        return refreshNow();
      });
    } finally {
      setTimeout(() => (refreshing = null), 0);
    }
  })();
  return refreshing;
}

interface RequestOptions {
  method?: string;
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
  /** Do not try to renew the session on 401 (sign-in forms). */
  noRefresh?: boolean;
  signal?: AbortSignal;
}

async function toError(res: Response): Promise<ApiError> {
  let body: Record<string, unknown> = {};
  try {
    body = (await res.json()) as Record<string, unknown>;
  } catch {
    /* not JSON: keep the status text */
  }
  const message = typeof body.message === "string" ? body.message : `${res.status} ${res.statusText}`;
  const code = typeof body.error === "string" ? body.error : "HTTP_" + res.status;
  return new ApiError(res.status, code, message, body.details as Record<string, unknown> | undefined, body);
}

/** Sends a request with the access token; on 401 renews once and retries; returns the parsed body. */
export async function api<T = unknown>(path: string, opts: RequestOptions = {}): Promise<T> {
  const send = () => {
    const headers: Record<string, string> = { ...opts.headers };
    if (accessToken) headers.authorization = `Bearer ${accessToken}`;
    let body = opts.body;
    if (opts.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(opts.json);
    }
    return fetch(path, { method: opts.method ?? "GET", headers, body, credentials: "same-origin", signal: opts.signal });
  };
  let res = await send();
  if (res.status === 401 && !opts.noRefresh) {
    if (await refreshSession()) res = await send();
    else expiredListeners.forEach((l) => l());
  }
  if (!res.ok) throw await toError(res);
  if (res.status === 204) return undefined as T;
  const type = res.headers.get("content-type") ?? "";
  return (type.includes("json") ? await res.json() : await res.text()) as T;
}

export const get = <T>(path: string, signal?: AbortSignal) => api<T>(path, signal ? { signal } : {});
export const post = <T>(path: string, json?: unknown) => api<T>(path, { method: "POST", json: json ?? {} });
export const put = <T>(path: string, json?: unknown) => api<T>(path, { method: "PUT", json: json ?? {} });
export const patch = <T>(path: string, json?: unknown) => api<T>(path, { method: "PATCH", json: json ?? {} });
export const del = <T>(path: string) => api<T>(path, { method: "DELETE" });

/** A message a person can act on, from anything thrown. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === "RATE_LIMITED") return "Too many attempts. Wait a moment and try again.";
    return error.message;
  }
  if (error instanceof TypeError) return "The server cannot be reached. Check your connection and try again.";
  return error instanceof Error ? error.message : String(error);
}

/**
 * A multipart upload with progress (fetch cannot report upload progress; XMLHttpRequest can).
 * Renews the session once on 401, like `api`; errors keep the API's shape.
 */
export function uploadWithProgress<T>(path: string, form: FormData, onProgress: (fraction: number) => void): Promise<T> {
  const send = () =>
    new Promise<{ status: number; text: string; type: string }>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open("POST", path);
      if (accessToken) xhr.setRequestHeader("authorization", `Bearer ${accessToken}`);
      xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
      xhr.onload = () => resolve({ status: xhr.status, text: xhr.responseText, type: xhr.getResponseHeader("content-type") ?? "" });
      xhr.onerror = () => reject(new TypeError("network error"));
      xhr.send(form);
    });
  return (async () => {
    let res = await send();
    if (res.status === 401 && (await refreshSession())) res = await send();
    if (res.status >= 200 && res.status < 300) return JSON.parse(res.text) as T;
    const response = new Response(res.text, { status: res.status, headers: { "content-type": res.type } });
    throw await toError(response);
  })();
}

/** A file behind the API (an upload) as an object URL, for <img> elements that cannot send the token. */
export async function objectUrlOf(path: string): Promise<string> {
  const send = () => fetch(path, { headers: accessToken ? { authorization: `Bearer ${accessToken}` } : {}, credentials: "same-origin" });
  let res = await send();
  if (res.status === 401 && (await refreshSession())) res = await send();
  if (!res.ok) throw await toError(res);
  return URL.createObjectURL(await res.blob());
}
