import type { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { assistInstructions, MODE_TITLES } from "../ai/modes.ts";
import { ASSIST_MODES, MAX_ASSIST_CHARS } from "../ai/schemas.ts";

/** The six writing modes as prompts: the same instructions the writing-assist service uses. */
const PROMPTS = ASSIST_MODES.map((mode) => ({
  mode,
  description: `${MODE_TITLES[mode]}: ${assistInstructions(mode).split(". ")[0]}.`,
  args: z.object({
    text: z.string().min(1).max(MAX_ASSIST_CHARS).describe("The text to work on"),
    language: z.string().max(40).optional().describe(mode === "translate" ? "Target language (default English)" : "Language to write in"),
  }),
}));

export function registerPrompts(server: McpServer): void {
  for (const { mode, description, args } of PROMPTS) {
    server.registerPrompt(mode, { title: MODE_TITLES[mode], description, argsSchema: args }, ({ text, language }) => ({
      messages: [{ role: "user" as const, content: { type: "text" as const, text: `${assistInstructions(mode, language)}\n\n${text}` } }],
    }));
  }
}
