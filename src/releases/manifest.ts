/** A release's `manifest.json` (docs/decisions/releases.md): written by `bun run release`, read by `quire upgrade`. */
export interface ReleaseManifest {
  version: string;
  /** The database schema this release writes (its newest migration). */
  schema: number;
  commit: string;
  date: string;
  files: ReleaseFile[];
}

export interface ReleaseFile {
  name: string;
  os: string;
  arch: string;
  size: number;
  sha256: string;
  /** The argon2 binding embedded in the executable: the target's own. */
  argon2: { package: string; file: string; size: number; sha256: string };
}
