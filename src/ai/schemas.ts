import { z } from "zod";

/** The six writing modes of the assist menu, the MCP tool and `POST /api/ai/assist`. */
export const ASSIST_MODES = ["improve", "shorten", "expand", "fix_grammar", "summarize", "translate"] as const;
export type AssistMode = (typeof ASSIST_MODES)[number];

/** Longest text one assist call takes (a long page section; a whole book is not a writing edit). */
export const MAX_ASSIST_CHARS = 50_000;

export const assistInput = z.strictObject({
  text: z
    .string({ error: "is required" })
    .min(1, "must not be empty")
    .max(MAX_ASSIST_CHARS, `must be at most ${MAX_ASSIST_CHARS} characters`)
    .refine((s) => !s.includes("\u0000"), "must not contain NUL characters"),
  mode: z.enum(ASSIST_MODES),
  /** The target language of `translate` (default English); the language to write in otherwise. */
  language: z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(40, "must be at most 40 characters")
    .regex(/^[\p{L}\p{M} ()\-]+$/u, "must be a language name such as French")
    .optional(),
});
export type AssistInput = z.infer<typeof assistInput>;
