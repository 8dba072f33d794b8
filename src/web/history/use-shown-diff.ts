/** The diff a dialog shows: its title, then the diff read from the API or the error of that read. */
import { useState } from "react";
import type { PageDiff } from "../api/history.ts";

export interface ShownDiff {
  title: string;
  diff: PageDiff | null;
  error?: unknown;
}

export function useShownDiff() {
  const [shown, setShown] = useState<ShownDiff | null>(null);
  const show = async (title: string, read: () => Promise<PageDiff>) => {
    setShown({ title, diff: null });
    try {
      setShown({ title, diff: await read() });
    } catch (e) {
      setShown({ title, diff: null, error: e });
    }
  };
  return { shown, show, close: () => setShown(null) };
}
