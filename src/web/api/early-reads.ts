/**
 * Reads started before the screen that needs them exists (its code still loading, sign-in still
 * finishing), so they run beside that work instead of after it. Each is taken once, and only while
 * fresh; otherwise the taker reads again.
 */
const FRESH_MS = 5000;

export function earlyReads<T>() {
  const started = new Map<string, { at: number; read: Promise<T>; value?: { of: T } }>();
  return {
    /**
     * Starts `read` under `key`, in place of one waiting there (a newer read is never staler), or,
     * with `ifAbsent`, only when none waits.
     */
    start(key: string, read: () => Promise<T>, ifAbsent = false): void {
      if (ifAbsent && started.has(key)) return;
      const promise = read();
      const entry: { at: number; read: Promise<T>; value?: { of: T } } = { at: Date.now(), read: promise };
      promise.then((of) => (entry.value = { of }), () => {}); // whoever takes it reports the failure
      started.set(key, entry);
    },
    /**
     * The read's answer when it has already come and is still fresh, else null. Only a look: a
     * render may ask and be thrown away, so the read stays until `take` or `drop`.
     */
    answered(key: string): T | null {
      const early = started.get(key);
      return early?.value && Date.now() - early.at < FRESH_MS ? early.value.of : null;
    },
    /** Forgets the read under `key` (its answer was used). */
    drop(key: string): void {
      started.delete(key);
    },
    /** The read started under `key` when it is still fresh, else a new one. */
    take(key: string, read: () => Promise<T>): Promise<T> {
      const early = started.get(key);
      started.delete(key);
      return early && Date.now() - early.at < FRESH_MS ? early.read : read();
    },
  };
}
