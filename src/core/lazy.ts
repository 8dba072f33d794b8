/**
 * A value built on first use, once. `peek()` answers without building: a hook that only clears a
 * cache has nothing to clear while the cache's owner was never built.
 */
interface Lazy<T> {
  (): T;
  peek(): T | undefined;
}

export function lazy<T>(build: () => T): Lazy<T> {
  let built = false;
  let value: T | undefined;
  const get = (() => {
    if (!built) {
      value = build();
      built = true;
    }
    return value as T;
  }) as Lazy<T>;
  get.peek = () => (built ? value : undefined);
  return get;
}

/**
 * Defines each key of `keys` on `target` as a getter for the lazily built group's member. Once the
 * group is built the getter answers the member itself; before, it answers a stand-in that builds
 * the group on its first use (a method call, a property read). So code that takes a service when
 * it is set up and uses it later — a route handler, `const { comments } = services` — does not
 * build the group until a request needs it.
 */
export function defineLazy<G extends object, K extends keyof G>(target: object, group: Lazy<G>, keys: readonly K[]): void {
  for (const key of keys) {
    let standIn: G[K] | undefined;
    Object.defineProperty(target, key, {
      enumerable: true,
      configurable: false,
      get: () => {
        const built = group.peek();
        if (built) return built[key];
        return (standIn ??= deferred(() => group()[key] as object) as G[K]);
      },
    });
  }
}

/** An object that builds its target on first use and forwards every use to it (methods bound to it). */
function deferred<T extends object>(target: () => T): T {
  const bound = new Map<PropertyKey, { of: Function; fn: Function }>();
  return new Proxy({} as T, {
    get(_, prop) {
      const real = target();
      const value: unknown = Reflect.get(real, prop, real);
      if (typeof value !== "function") return value;
      let hit = bound.get(prop);
      if (hit?.of !== value) bound.set(prop, (hit = { of: value, fn: value.bind(real) }));
      return hit.fn;
    },
    set: (_, prop, value) => Reflect.set(target(), prop, value),
    has: (_, prop) => Reflect.has(target(), prop),
    getPrototypeOf: () => Reflect.getPrototypeOf(target()),
  });
}
