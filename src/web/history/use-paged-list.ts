/**
 * A list read page by page with the API's cursor (`next_cursor`): the first page, then older ones
 * appended; the error of the last read, and whether a read is under way. `read` is the page read
 * for a cursor (null: the first page); a new `read` (its arguments changed) starts again.
 */
import { useCallback, useState } from "react";

export function usePagedList<Page extends { items: unknown[]; next_cursor: string | null }>(read: (after: string | null) => Promise<Page>, onPage?: (page: Page) => void) {
  const [items, setItems] = useState<Page["items"] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const load = useCallback(
    async (after: string | null) => {
      setBusy(true);
      try {
        const page = await read(after);
        setItems((prev) => (after && prev ? ([...prev, ...page.items] as Page["items"]) : page.items));
        setCursor(page.next_cursor);
        onPage?.(page);
        setError(null);
      } catch (e) {
        setError(e);
      } finally {
        setBusy(false);
      }
    },
    // `onPage` is a plain callback of the caller's: only `read` decides what is read.
    [read], // eslint-disable-line react-hooks/exhaustive-deps
  );
  return { items, setItems, cursor, busy, error, load };
}
