/**
 * The person's API keys: create with a name, scopes, an expiry and optionally one workspace; the
 * secret is shown once with a copy button and a ready-to-paste MCP client configuration; rotate
 * (new secret, old one stops at once) and delete.
 */
import { useState } from "react";
import type { Workspace } from "../api/types.ts";
import { createApiKey, listApiKeys, mcpClientConfig, revokeApiKey, rotateApiKey, type McpClientConfig } from "../api/settings.ts";
import { Field, Notice } from "../ui/controls.tsx";
import { fmtDate, ListTable, SecretBox, useAction, useResource } from "./common.tsx";

const SCOPES: Array<[string, string]> = [
  ["read", "Read pages and search"],
  ["write", "Create and edit pages"],
  ["delete", "Delete pages"],
  ["admin:read", "Read workspace administration"],
  ["admin", "Administer the workspace"],
];

/** Claude Desktop / Cursor format: the running executable's absolute path, the key in the environment. */
function mcpStdioConfig(cfg: McpClientConfig, slug: string, secret: string): string {
  return JSON.stringify(
    { mcpServers: { quire: { command: cfg.command, args: [...cfg.args, "mcp", "--workspace", slug], env: { QUIRE_API_KEY: secret } } } },
    null,
    2,
  );
}

/** Streamable HTTP: the endpoint on this server, the key as a Bearer header. */
function mcpHttpConfig(cfg: McpClientConfig, secret: string): string {
  return JSON.stringify({ mcpServers: { quire: { type: "http", url: cfg.http_url, headers: { Authorization: `Bearer ${secret}` } } } }, null, 2);
}

export function ApiKeysSettings({ workspace }: { workspace: Workspace }) {
  const { data, error, reload } = useResource("keys", listApiKeys);
  const client = useResource("mcp-client-config", mcpClientConfig);
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<string[]>(["read"]);
  const [days, setDays] = useState("90");
  const [onlyHere, setOnlyHere] = useState(true);
  const [secret, setSecret] = useState<{ name: string; value: string } | null>(null);
  const action = useAction();

  return (
    <>
      <form
        className="settings-form"
        onSubmit={async (e) => {
          e.preventDefault();
          setSecret(null);
          const body: Record<string, unknown> = { name, scopes };
          if (days) body.expires_at = Math.floor(Date.now() / 1000) + Number(days) * 86_400;
          if (onlyHere) body.workspace_id = workspace.id;
          // The answer is the key's record plus `key`, the secret (shown only in this answer).
          const res = await action.run(() => createApiKey(body));
          if (res) {
            setSecret({ name: res.name, value: res.key });
            setName("");
            await reload();
          }
        }}
      >
        <Field label="Key name" required value={name} onChange={(e) => setName(e.target.value)} placeholder="CI docs sync" />
        <fieldset className="checks">
          <legend>Scopes</legend>
          {SCOPES.map(([s, text]) => (
            <div className="check" key={s}>
              <input
                id={`scope-${s}`}
                type="checkbox"
                checked={scopes.includes(s)}
                onChange={(e) => setScopes(e.target.checked ? [...scopes, s] : scopes.filter((x) => x !== s))}
              />
              <label htmlFor={`scope-${s}`}>
                <code>{s}</code> — {text}
              </label>
            </div>
          ))}
        </fieldset>
        <div className="field">
          <label htmlFor="key-expiry">Expires</label>
          <select id="key-expiry" value={days} onChange={(e) => setDays(e.target.value)}>
            <option value="7">in 7 days</option>
            <option value="30">in 30 days</option>
            <option value="90">in 90 days</option>
            <option value="365">in a year</option>
            <option value="">never</option>
          </select>
        </div>
        <div className="check">
          <input id="key-here" type="checkbox" checked={onlyHere} onChange={(e) => setOnlyHere(e.target.checked)} />
          <label htmlFor="key-here">Only for {workspace.name}</label>
        </div>
        <button className="btn btn-primary" type="submit" disabled={action.busy || scopes.length === 0 || !name.trim()}>
          {action.busy ? "Creating…" : "Create key"}
        </button>
      </form>
      {action.error && <Notice kind="error">{action.error}</Notice>}
      {secret && (
        <div className="secret-panel" role="region" aria-label="New API key">
          <SecretBox label={`Secret of “${secret.name}”`} value={secret.value} note="Copy it now: it is shown only once. Send it as “Authorization: Bearer …”." />
          {client.data && (
            <>
              <div className="field">
                <label htmlFor="mcp-config">MCP client configuration (stdio: Claude Desktop, Cursor)</label>
                <textarea id="mcp-config" readOnly rows={14} value={mcpStdioConfig(client.data, workspace.slug, secret.value)} onFocus={(e) => e.currentTarget.select()} />
              </div>
              <div className="field">
                <label htmlFor="mcp-http-config">MCP client configuration (Streamable HTTP)</label>
                <textarea id="mcp-http-config" readOnly rows={11} value={mcpHttpConfig(client.data, secret.value)} onFocus={(e) => e.currentTarget.select()} />
              </div>
            </>
          )}
        </div>
      )}
      <h3>Your keys</h3>
      <ListTable
        error={error}
        data={data}
        empty="No API keys yet."
        columns={["Name", "Key", "Scopes", "Expires", "Last used"]}
        row={(k) => (
          <>
            <td>{k.name}</td>
            <td>
              <code>{k.prefix}…</code>
            </td>
            <td>{k.scopes.join(", ")}</td>
            <td>{k.expires_at ? new Date(k.expires_at * 1000).toLocaleDateString() : "Never"}</td>
            <td>{fmtDate(k.last_used_at)}</td>
            <td className="row-actions">
              <button
                type="button"
                className="btn btn-small"
                aria-label={`Rotate ${k.name}`}
                onClick={async () => {
                  if (!window.confirm(`Rotate “${k.name}”? The current secret stops working at once.`)) return;
                  const res = await action.run(() => rotateApiKey(k.id));
                  if (res) setSecret({ name: res.name, value: res.key });
                  await reload();
                }}
              >
                Rotate
              </button>
              <button
                type="button"
                className="btn btn-small btn-danger"
                aria-label={`Delete ${k.name}`}
                onClick={async () => {
                  if (!window.confirm(`Delete “${k.name}”? Anything using it stops working.`)) return;
                  await action.run(() => revokeApiKey(k.id));
                  await reload();
                }}
              >
                Delete
              </button>
            </td>
          </>
        )}
      />
    </>
  );
}
