import type { Logger } from "./log.ts";

type Closer = () => Promise<void> | void;

/**
 * What a process must stop or close before it exits (workers, timers, databases, watchers). Each
 * domain registers its closers where it builds them, so the order is the order of construction;
 * closeAll() runs them in reverse (a service closes before what it was built on, the database last
 * of all) and goes on past a failure, which it logs.
 */
export class Closers {
  private readonly list: Closer[] = [];
  private closing: Promise<void> | undefined;

  /** Registers a closer; it runs before every closer registered earlier. */
  push(close: Closer): void {
    this.list.push(close);
  }

  /** Runs every closer once, newest first; a second call waits for the first. */
  closeAll(log?: Logger): Promise<void> {
    this.closing ??= (async () => {
      for (const close of this.list.reverse()) {
        try {
          await close();
        } catch (error) {
          log?.warn("error while closing", { error: String(error) });
        }
      }
      this.list.length = 0;
    })();
    return this.closing;
  }
}
