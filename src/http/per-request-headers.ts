/**
 * The response headers that belong to one request: its id and its caller's rate-limit state
 * (docs/interfaces.md §8). httpCore (core.ts) and the site's direct lane (site-fast-path.ts) add
 * them, a 429 carries the limit's (error-response.ts), and an answer a shared cache stores goes
 * without them (routes/site.ts): one reader's id and allowance are nobody else's.
 */
export const REQUEST_ID = "x-request-id";
export const RATE_LIMIT_LIMIT = "x-ratelimit-limit";
export const RATE_LIMIT_REMAINING = "x-ratelimit-remaining";
export const RATE_LIMIT_RESET = "x-ratelimit-reset";

export const PER_REQUEST_HEADERS = [REQUEST_ID, RATE_LIMIT_LIMIT, RATE_LIMIT_REMAINING, RATE_LIMIT_RESET] as const;
