/** How the history screens write a commit and a time. */
export const shortCommit = (commit: string) => commit.slice(0, 8);
export const when = (iso: string) => new Date(iso).toLocaleString();
