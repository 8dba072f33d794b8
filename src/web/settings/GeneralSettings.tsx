/** Workspace name, description and what editors may do with pages (admins). */
import { useEffect, useState } from "react";
import type { Workspace } from "../api/types.ts";
import { readSettings, saveSettings } from "../api/settings.ts";
import { Field, Notice, Spinner } from "../ui/controls.tsx";
import { useAction, useResource } from "./common.tsx";

interface GeneralForm {
  name: string;
  description: string;
  editor_can_create_pages: boolean;
  editor_can_delete_pages: boolean;
  editors_manage_access: boolean;
}

export function GeneralSettings({ workspace, onSaved }: { workspace: Workspace; onSaved(): void }) {
  const { data, error } = useResource(workspace.id, () => readSettings(workspace.id));
  const [form, setForm] = useState<GeneralForm | null>(null);
  const [saved, setSaved] = useState(false);
  const action = useAction();
  useEffect(() => {
    if (data) setForm({ name: data.name, description: data.description ?? "", editor_can_create_pages: !!data.editor_can_create_pages, editor_can_delete_pages: !!data.editor_can_delete_pages, editors_manage_access: !!data.editors_manage_access });
  }, [data]);
  if (error) return <Notice kind="error">{String((error as Error).message)}</Notice>;
  if (!form) return <Spinner label="Loading settings" />;
  return (
    <form
      className="settings-form"
      onSubmit={async (e) => {
        e.preventDefault();
        setSaved(false);
        const ok = await action.run(() => saveSettings(workspace.id, { ...form }));
        if (ok !== undefined) {
          setSaved(true);
          onSaved();
        }
      }}
    >
      {action.error && <Notice kind="error">{action.error}</Notice>}
      {saved && <Notice kind="success">Settings saved.</Notice>}
      <Field label="Name" required value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
      <div className="field">
        <label htmlFor="ws-description">Description</label>
        <textarea id="ws-description" rows={3} value={form.description} onChange={(e) => setForm({ ...form, description: e.target.value })} />
      </div>
      <fieldset className="checks">
        <legend>Editors may</legend>
        <div className="check">
          <input id="ws-create" type="checkbox" checked={form.editor_can_create_pages} onChange={(e) => setForm({ ...form, editor_can_create_pages: e.target.checked })} />
          <label htmlFor="ws-create">Create pages</label>
        </div>
        <div className="check">
          <input id="ws-delete" type="checkbox" checked={form.editor_can_delete_pages} onChange={(e) => setForm({ ...form, editor_can_delete_pages: e.target.checked })} />
          <label htmlFor="ws-delete">Delete pages</label>
        </div>
        <div className="check">
          <input id="ws-manage-access" type="checkbox" checked={form.editors_manage_access} onChange={(e) => setForm({ ...form, editors_manage_access: e.target.checked })} />
          <label htmlFor="ws-manage-access">Set the access list of folders and pages they can edit</label>
        </div>
      </fieldset>
      <button className="btn btn-primary" type="submit" disabled={action.busy}>
        {action.busy ? "Saving…" : "Save settings"}
      </button>
    </form>
  );
}
