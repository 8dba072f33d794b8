/**
 * The browser app embedded in the compiled binary. From source this is null and the app is built
 * on first request; `build.ts` replaces this module through `webBundlePlugin(dir)` (build-web.ts)
 * with one whose files are embedded in the executable and read on first use.
 */
export interface SerializedWebApp {
  entry: string;
  styles: string[];
  /** file name → text (every output of the web build is JS or CSS). */
  files: Record<string, string>;
}

export const PREBUILT: SerializedWebApp | null = null as SerializedWebApp | null;
