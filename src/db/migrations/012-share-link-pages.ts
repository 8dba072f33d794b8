/**
 * Page share links (docs/decisions/restricted-folders.md, "Share links"): a link may open one page,
 * named by its id so that a move keeps the link pointing at it. NULL: a link that joins the workspace.
 */
export const sql = /* sql */ `
ALTER TABLE share_links ADD COLUMN page_id TEXT;
`;
