import { z } from "zod";
import { ERROR_CODES } from "./errors.ts";

/**
 * Output schemas shared by every domain: the error body of docs/interfaces.md §7 and the list envelope. Like the
 * domains' output schemas, they describe what the API answers; the OpenAPI document is generated
 * from them and test/http/openapi.test.ts checks real answers against it.
 */

/**
 * An answer schema, built when first used. Output schemas only describe answers (the OpenAPI
 * document, built on its first request, and the tests that check answers against it); no route
 * validates with them, so building them at import cost every start ~770 zod objects and their
 * compiled code for nothing (docs/decisions/runtime-footprint.md). The type is the built schema's
 * and its JSON Schema is the same.
 */
export const lazyOutput = <T extends z.ZodType>(build: () => T): z.ZodLazy<T> => z.lazy(build);

const hash = z.string().regex(/^sha256:[0-9a-f]{64}$/);

/** The error object of docs/interfaces.md §7; a page update's 409 adds the four conflict fields beside it. */
export const errorOutput = lazyOutput(() => z
  .object({
    error: z.enum(ERROR_CODES).describe("Machine code"),
    message: z.string().describe("Human text"),
    details: z.record(z.string(), z.unknown()).optional().describe("E.g. the offending field: {field}"),
    request_id: z.string().describe("Correlates with the server's logs (also the X-Request-Id header)"),
    current_hash: hash.optional().describe("409 on a page update: the page's content hash now"),
    your_hash: hash.nullable().optional().describe("409 on a page update: the lastKnownHash sent"),
    modified_by: z.string().nullable().optional().describe("409 on a page update: who changed it last"),
    modified_at: z.string().optional().describe("409 on a page update: when it changed last"),
  })
  .describe("Every error answer: error, message, optional details, request_id"));

/** A page of a list: the items and the cursor of the next page (null on the last). */
export function listOutput<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    next_cursor: z.string().nullable().describe("Pass as ?cursor= for the next page; null on the last"),
  });
}
