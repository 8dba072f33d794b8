/**
 * What the last reconcile pass saw of a page's file (docs/decisions/startup-reconcile.md):
 * `size:mtime_ns:ctime_ns:inode` of the file as it stood before the pass read and hashed it.
 * NULL: not known (Quire wrote the file since, or it was too fresh to trust), so the next start
 * reads the file.
 */
export const sql = /* sql */ `
ALTER TABLE pages ADD COLUMN file_stat TEXT;
`;
