/**
 * A small HTTP client for tests: each instance speaks from its own client address (the test
 * server trusts X-Forwarded-For), so per-IP limits of one test never leak into another.
 */
let ipCounter = 0;
export function nextIp(): string {
  ipCounter++;
  return `10.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export class Client {
  token: string | undefined;
  cookies = new Map<string, string>();
  constructor(
    readonly baseUrl: string,
    readonly ip: string = nextIp(),
  ) {}

  withToken(token: string | undefined): Client {
    const c = new Client(this.baseUrl, this.ip);
    c.token = token;
    return c;
  }

  async request<T = any>(
    method: string,
    path: string,
    opts: { json?: unknown; body?: RequestInit["body"]; headers?: Record<string, string>; token?: string | null } = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { "x-forwarded-for": this.ip, ...opts.headers };
    const token = opts.token === null ? undefined : (opts.token ?? this.token);
    if (token) headers.authorization = `Bearer ${token}`;
    if (this.cookies.size > 0 && !headers.cookie) {
      headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    }
    let body = opts.body;
    if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      headers["content-type"] = "application/json";
    }
    const res = await fetch(this.baseUrl + path, { method, headers, body, redirect: "manual" });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const [name, ...rest] = pair!.split("=");
      const value = rest.join("=");
      if (value === "" || /max-age=0/i.test(c)) this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), value);
    }
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get("content-type") ?? "").includes("json") && text !== "") parsed = JSON.parse(text);
    return { status: res.status, body: parsed as T, headers: res.headers, text };
  }

  get<T = any>(path: string, opts?: Parameters<Client["request"]>[2]) {
    return this.request<T>("GET", path, opts);
  }
  post<T = any>(path: string, json?: unknown, opts?: Parameters<Client["request"]>[2]) {
    return this.request<T>("POST", path, { ...opts, json });
  }
  put<T = any>(path: string, json?: unknown, opts?: Parameters<Client["request"]>[2]) {
    return this.request<T>("PUT", path, { ...opts, json });
  }
  patch<T = any>(path: string, json?: unknown, opts?: Parameters<Client["request"]>[2]) {
    return this.request<T>("PATCH", path, { ...opts, json });
  }
  delete<T = any>(path: string, opts?: Parameters<Client["request"]>[2]) {
    return this.request<T>("DELETE", path, opts);
  }
}
