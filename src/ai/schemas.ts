import { z } from "zod";
import { lazyInput } from "../core/validate.ts";
import { lazyOutput } from "../core/schemas.ts";

/** The six writing modes of the assist menu, the MCP tool and `POST /api/ai/assist`. */
export const ASSIST_MODES = ["improve", "shorten", "expand", "fix_grammar", "summarize", "translate"] as const;
export type AssistMode = (typeof ASSIST_MODES)[number];

/** Longest text one assist call takes (a long page section; a whole book is not a writing edit). */
export const MAX_ASSIST_CHARS = 50_000;

export const assistInput = lazyInput(() => z.strictObject({
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
}));

// ---- outputs (the OpenAPI document is generated from these) ----

/**
 * POST /api/ai/assist: the configured model's rewrite, or — with no model configured — the
 * instructions for the calling agent to apply to the text itself.
 */
export const assistOutput = lazyOutput(() => z.union([
  z.object({ text: z.string().describe("The rewritten text"), model: z.string().describe("The model that wrote it") }),
  z.object({ instructions: z.string().describe("What to do with the text (no model is configured here)"), text: z.string().describe("The text as sent") }),
]));
export type AssistOutput = z.infer<typeof assistOutput>;

/** GET /api/v1/mcp/client-config: how an agent reaches this server over MCP. */
export const mcpClientConfigOutput = lazyOutput(() => z.object({
  command: z.string().describe("The executable that serves MCP over stdio (`quire mcp`)"),
  args: z.array(z.string()),
  http_url: z.string().describe("The Streamable HTTP endpoint (/mcp)"),
}));
export type McpClientConfigOutput = z.infer<typeof mcpClientConfigOutput>;
