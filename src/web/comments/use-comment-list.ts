/**
 * A page's comments read whole (every cursor page, in order) and one action at a time on them,
 * with the last error: what the workspace's comments panel and a shared page's comments both hold.
 * `readPage` must be stable (a useCallback): a new one reads the list again.
 */
import { useCallback, useEffect, useState } from "react";
import type { Comment } from "../api/types.ts";

type CommentPage = { items: Comment[]; next_cursor: string | null };

export function useCommentList(readPage: (cursor: string | null) => Promise<CommentPage>) {
  const [items, setItems] = useState<Comment[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    try {
      const all: Comment[] = [];
      let cursor: string | null = null;
      do {
        const page: CommentPage = await readPage(cursor);
        all.push(...page.items);
        cursor = page.next_cursor;
      } while (cursor);
      setItems(all);
      setError(null);
    } catch (e) {
      setError(e);
    }
  }, [readPage]);
  useEffect(() => {
    void load();
  }, [load]);

  /** Runs one change, then reads the list again; false (the error kept) when the change failed. */
  const act = async (work: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      await work();
      await load();
      return true;
    } catch (e) {
      setError(e);
      return false;
    } finally {
      setBusy(false);
    }
  };

  return { items, error, busy, load, act };
}
