/**
 * A module loader for React's `lazy` that, once the module has loaded, hands it over as it is asked
 * (a thenable that answers at once) instead of through a promise, which React can only read a task
 * later: a screen whose code is already here renders in the first pass, without a Suspense
 * fallback rendered, committed and replaced (docs/decisions/editor-blocks.md).
 */
export function loadedOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: { module: T } | null = null;
  return () => {
    if (loaded) {
      const { module } = loaded;
      // React's lazy reads only `then`, and reads it synchronously.
      return { then: (onLoaded: (m: T) => unknown) => Promise.resolve(onLoaded(module)) } as unknown as Promise<T>;
    }
    const loading = load();
    loading.then((module) => (loaded = { module }), () => {});
    return loading;
  };
}
