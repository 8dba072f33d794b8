/**
 * The browser app embedded in the compiled binary. From source this is null and the app is built
 * on first request; `build.ts` replaces this module through `webBundlePlugin(dir)` (build-web.ts)
 * with one whose files are embedded in the executable and served from there.
 */
export interface SerializedWebApp {
  entry: string;
  styles: string[];
  preloads: { app: string[]; page: string[] };
  /** file name → the embedded paths of its bytes and, when smaller, its gzip. */
  files: Record<string, { body: string; gzip?: string }>;
}

export const PREBUILT: SerializedWebApp | null = null as SerializedWebApp | null;
