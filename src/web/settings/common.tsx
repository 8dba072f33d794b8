/** Helpers shared by the settings tabs: a reloadable list, an action runner with error and progress, copy buttons. */
import { useCallback, useEffect, useRef, useState, type ReactNode } from "react";
import { messageOf } from "../api/client.ts";
import type { List } from "../api/types.ts";
import { Notice, Spinner } from "../ui/controls.tsx";

/** A read from src/web/api/ kept with its error and a reload; `key` names what is read (a new key reads again). */
export function useResource<T>(key: string | null, read: () => Promise<T>) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const reader = useRef(read);
  reader.current = read;
  const load = useCallback(async () => {
    if (key === null) return;
    try {
      setData(await reader.current());
      setError(null);
    } catch (e) {
      setError(e);
    }
  }, [key]);
  useEffect(() => {
    void load();
  }, [load]);
  return { data, error, reload: load };
}

/** Runs one action at a time, keeping its error message (from the API's error shape) and a busy flag. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async <T,>(work: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await work();
    } catch (e) {
      setError(messageOf(e));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clearError: () => setError(null) };
}

export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      className="btn btn-small"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
          setDone(true);
          setTimeout(() => setDone(false), 1500);
        } catch {
          /* clipboard refused (no permission): the text is selectable on screen */
        }
      }}
    >
      {done ? "Copied" : label}
    </button>
  );
}

/** A secret or link shown once, in a read-only field that selects itself, with a copy button. */
export function SecretBox({ label, value, note }: { label: string; value: string; note?: string }) {
  return (
    <div className="secret-box">
      <label className="secret-label">
        {label}
        <input readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
      </label>
      <CopyButton text={value} />
      {note && <p className="hint">{note}</p>}
    </div>
  );
}

export const roleLabel: Record<string, string> = { viewer: "Viewer", commenter: "Commenter", editor: "Editor", admin: "Admin", super_admin: "Super Admin" };
export const fmtDate = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : "—");

/** Items with an `id` are keyed by it; others (members, keyed by user) say how. */
type RowKey<T> = T extends { id: string } ? { rowKey?(item: T): string } : { rowKey(item: T): string };

/**
 * A settings list: the load error, a spinner while loading, a line when empty, else a table with
 * the given column headings plus a hidden "Actions" heading; `row` renders one item's cells.
 */
export function ListTable<T extends object>(
  props: {
    error: unknown;
    data: List<T> | null;
    empty: string;
    columns: string[];
    /** What the spinner announces while the list loads. */
    loading?: string;
    row(item: T): ReactNode;
  } & RowKey<T>,
) {
  const key = (props.rowKey as ((item: T) => string) | undefined) ?? ((item: T) => (item as { id: string }).id);
  if (props.error) return <Notice kind="error">{String((props.error as Error).message)}</Notice>;
  if (!props.data) return <Spinner label={props.loading} />;
  if (props.data.items.length === 0) return <p className="muted">{props.empty}</p>;
  return (
    <table className="table">
      <thead>
        <tr>
          {props.columns.map((c) => (
            <th key={c} scope="col">
              {c}
            </th>
          ))}
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {props.data.items.map((item) => (
          <tr key={key(item)}>{props.row(item)}</tr>
        ))}
      </tbody>
    </table>
  );
}
