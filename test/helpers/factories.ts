import { Client } from "./client.ts";

let userCounter = 0;

export interface TestUser {
  client: Client;
  id: string;
  name: string;
  email: string;
  password: string;
  accessToken: string;
  /** The starter workspace created at registration. */
  workspaceId: string;
  workspaceSlug: string;
}

/** Registers a new user through the API from its own client address and returns a signed-in client. */
export async function registerUser(baseUrl: string, overrides: { name?: string; email?: string; password?: string } = {}): Promise<TestUser> {
  userCounter++;
  const name = overrides.name ?? `User ${userCounter}`;
  const email = overrides.email ?? `user${userCounter}.${Date.now()}@example.test`;
  const password = overrides.password ?? "correct horse battery staple";
  const client = new Client(baseUrl);
  const res = await client.post("/api/auth/register", { name, email, password, terms_accepted: true });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${res.text}`);
  client.token = res.body.access_token;
  const list = await client.get("/api/v1/workspaces");
  const own = list.status === 200 ? list.body.items?.[0] : undefined;
  return {
    client,
    id: res.body.user.id,
    name,
    email,
    password,
    accessToken: res.body.access_token,
    workspaceId: own?.id ?? "",
    workspaceSlug: own?.slug ?? "",
  };
}
