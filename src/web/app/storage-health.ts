/**
 * The data directory's storage as administrators see it: /api/ready's storage check, read when the
 * workspace opens and every few minutes after (sparingly: it is a public endpoint every tab would
 * otherwise hammer), and at once when a save was refused for want of space or went through after
 * such a refusal.
 */
import { useEffect, useState } from "react";
import { readStorageCheck, type StorageCheck } from "../api/health.ts";

const POLL_MS = 3 * 60_000;

const refusedListeners = new Set<() => void>();

/** A save was refused by the server's storage (507, or 503 read-only), or one went through after such a refusal: the banner re-reads at once. */
export function storageChanged(): void {
  refusedListeners.forEach((l) => l());
}

/**
 * The storage check while `adminOf` names the open workspace of which the person is an
 * administrator (null otherwise: others cannot act on it); null when all is well or unknown.
 * Opening another workspace reads it again.
 */
export function useStorageHealth(adminOf: string | null): StorageCheck | null {
  const [check, setCheck] = useState<StorageCheck | null>(null);
  useEffect(() => {
    if (adminOf === null) {
      setCheck(null);
      return;
    }
    let stopped = false;
    const read = async () => {
      const c = await readStorageCheck();
      if (!stopped) setCheck(c && c.status !== "ok" ? c : null);
    };
    void read();
    const timer = setInterval(() => void read(), POLL_MS);
    const onRefused = () => void read();
    refusedListeners.add(onRefused);
    return () => {
      stopped = true;
      clearInterval(timer);
      refusedListeners.delete(onRefused);
    };
  }, [adminOf]);
  return check;
}
