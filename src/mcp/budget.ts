/**
 * Output budgets (docs/architecture.md §12): no tool result over about 20,000 tokens. Tokens are counted
 * the usual rough way, four characters each.
 */
export const MAX_RESULT_TOKENS = 20_000;
export const MAX_RESULT_CHARS = MAX_RESULT_TOKENS * 4;
