import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { memberRole, memberWithRole } from "./support.ts";

let server: TestServer;
let owner: TestUser;
beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
});
afterAll(() => server.close());

let n = 0;
async function workspace(): Promise<string> {
  const r = await owner.client.post("/api/v1/workspaces", { name: "Team", slug: `members-${++n}` });
  return r.body.id;
}

describe("members", () => {
  test("the admin lists members with name, email, role and join time", async () => {
    const ws = await workspace();
    const editor = await memberWithRole(server, owner, ws, "editor");
    const r = await owner.client.get(`/api/v1/workspaces/${ws}/admin/members`);
    expect(r.status).toBe(200);
    expect(r.body.next_cursor).toBeNull();
    expect(r.body.items).toHaveLength(2);
    expect(r.body.items[1]).toEqual({
      user_id: editor.id,
      name: editor.name,
      email: editor.email,
      role: "editor",
      joined_at: expect.any(String),
    });
    const page = await owner.client.get(`/api/v1/workspaces/${ws}/admin/members?limit=1`);
    expect(page.body.items).toHaveLength(1);
    const rest = await owner.client.get(`/api/v1/workspaces/${ws}/admin/members?limit=1&cursor=${page.body.next_cursor}`);
    expect(rest.body.items.map((m: any) => m.user_id)).toEqual([editor.id]);
    expect(rest.body.next_cursor).toBeNull();
  });

  test("changing a role takes effect on the member's next request", async () => {
    const ws = await workspace();
    const u = await memberWithRole(server, owner, ws, "viewer");
    expect((await u.client.get(`/api/v1/workspaces/${ws}/admin/members`)).status).toBe(403);
    const r = await owner.client.put(`/api/v1/workspaces/${ws}/admin/members/${u.id}/role`, { role: "admin" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ user_id: u.id, role: "admin" });
    expect(memberRole(server, ws, u.id)).toBe("admin");
    expect((await u.client.get(`/api/v1/workspaces/${ws}/admin/members`)).status).toBe(200);
    expect((await u.client.get(`/api/v1/workspaces/${ws}`)).body.role).toBe("admin");
  });

  test("bad roles and unknown members", async () => {
    const ws = await workspace();
    const u = await memberWithRole(server, owner, ws, "viewer");
    for (const body of [{ role: "owner" }, { role: "super_admin" }, {}, { role: "admin", extra: 1 }]) {
      const r = await owner.client.put(`/api/v1/workspaces/${ws}/admin/members/${u.id}/role`, body);
      expect(r.status).toBe(400);
    }
    const stranger = await registerUser(server.url);
    expect((await owner.client.put(`/api/v1/workspaces/${ws}/admin/members/${stranger.id}/role`, { role: "editor" })).status).toBe(404);
    expect((await owner.client.put(`/api/v1/workspaces/${ws}/admin/members/not-an-id/role`, { role: "editor" })).status).toBe(404);
    expect(memberRole(server, ws, stranger.id)).toBeNull();
    expect(memberRole(server, ws, u.id)).toBe("viewer");
  });

  test("the last admin cannot be demoted or removed", async () => {
    const ws = await workspace();
    const admin = await memberWithRole(server, owner, ws, "admin");
    // The owner (Super Admin) keeps access regardless; drop their member row to leave one admin.
    server.services.db.query("DELETE FROM workspace_members WHERE workspace_id = ? AND user_id = ?").run(ws, owner.id);
    const demote = await admin.client.put(`/api/v1/workspaces/${ws}/admin/members/${admin.id}/role`, { role: "editor" });
    expect(demote.status).toBe(409);
    expect(demote.body.error).toBe("CONFLICT");
    const remove = await admin.client.delete(`/api/v1/workspaces/${ws}/admin/members/${admin.id}`);
    expect(remove.status).toBe(409);
    expect(memberRole(server, ws, admin.id)).toBe("admin");
    // With a second admin, the first may step down.
    const second = await memberWithRole(server, owner, ws, "admin");
    const ok = await admin.client.put(`/api/v1/workspaces/${ws}/admin/members/${admin.id}/role`, { role: "editor" });
    expect(ok.status).toBe(200);
    expect(memberRole(server, ws, admin.id)).toBe("editor");
    expect((await second.client.put(`/api/v1/workspaces/${ws}/admin/members/${second.id}/role`, { role: "viewer" })).status).toBe(409);
  });

  test("a Super Admin's effective role cannot be changed or removed", async () => {
    const ws = await workspace();
    const admin = await memberWithRole(server, owner, ws, "admin");
    const r = await admin.client.put(`/api/v1/workspaces/${ws}/admin/members/${owner.id}/role`, { role: "viewer" });
    expect(r.status).toBe(403);
    expect(r.body.error).toBe("FORBIDDEN");
    expect((await admin.client.delete(`/api/v1/workspaces/${ws}/admin/members/${owner.id}`)).status).toBe(403);
    expect(memberRole(server, ws, owner.id)).toBe("admin");
    expect((await owner.client.get(`/api/v1/workspaces/${ws}`)).body.role).toBe("super_admin");
  });

  test("removing a member ends their access at once", async () => {
    const ws = await workspace();
    const u = await memberWithRole(server, owner, ws, "editor");
    expect((await u.client.get(`/api/v1/workspaces/${ws}`)).status).toBe(200);
    const r = await owner.client.delete(`/api/v1/workspaces/${ws}/admin/members/${u.id}`);
    expect(r.status).toBe(204);
    expect(memberRole(server, ws, u.id)).toBeNull();
    expect((await u.client.get(`/api/v1/workspaces/${ws}`)).status).toBe(404);
    expect((await owner.client.delete(`/api/v1/workspaces/${ws}/admin/members/${u.id}`)).status).toBe(404);
  });

  test("membership changes reach listeners after the commit", async () => {
    const ws = await workspace();
    const seen: string[] = [];
    const off = server.services.members.onChange((c) => {
      if (c.workspace_id === ws) seen.push(`${c.kind}:${c.role}:${c.via}`);
    });
    const u = await memberWithRole(server, owner, ws, "viewer");
    await owner.client.put(`/api/v1/workspaces/${ws}/admin/members/${u.id}/role`, { role: "editor" });
    await owner.client.delete(`/api/v1/workspaces/${ws}/admin/members/${u.id}`);
    off();
    expect(seen).toEqual(["joined:viewer:invitation", "role_changed:editor:admin", "left:null:admin"]);
  });
});
