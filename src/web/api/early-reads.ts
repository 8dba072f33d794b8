/**
 * Reads started before the screen that needs them exists (its code still loading, sign-in still
 * finishing), so they run beside that work instead of after it. Each is taken once, and only while
 * fresh; otherwise the taker reads again.
 */
const FRESH_MS = 5000;

export function earlyReads<T>() {
  const started = new Map<string, { at: number; read: Promise<T> }>();
  return {
    /**
     * Starts `read` under `key`, in place of one waiting there (a newer read is never staler), or,
     * with `ifAbsent`, only when none waits.
     */
    start(key: string, read: () => Promise<T>, ifAbsent = false): void {
      if (ifAbsent && started.has(key)) return;
      const promise = read();
      promise.catch(() => {}); // whoever takes it reports the failure
      started.set(key, { at: Date.now(), read: promise });
    },
    /** The read started under `key` when it is still fresh, else a new one. */
    take(key: string, read: () => Promise<T>): Promise<T> {
      const early = started.get(key);
      started.delete(key);
      return early && Date.now() - early.at < FRESH_MS ? early.read : read();
    },
  };
}
