import type { AssistMode } from "./schemas.ts";

/**
 * What each writing mode asks for, written once: the configured model gets it as its system
 * message, an agent without one gets it back as `instructions`, and the MCP prompts use it too.
 */
const TASKS: Record<AssistMode, string> = {
  improve: "Improve the clarity, flow and word choice of the text while keeping its meaning, facts, tone and length roughly the same.",
  shorten: "Shorten the text to about half its length, keeping every essential fact and the original tone.",
  expand: "Expand the text with useful detail, examples or explanation (about twice the length) without inventing facts that are not implied.",
  fix_grammar: "Fix spelling, grammar and punctuation only. Do not rephrase sentences that are already correct.",
  summarize: "Summarize the text in a few sentences (or a short bullet list for long texts) covering its main points.",
  translate: "Translate the text into {language}, keeping its meaning, tone and formatting.",
};

const RULES =
  "The text is Markdown from a documentation page: keep its Markdown structure (headings, lists, links, code blocks and inline code unchanged). " +
  "Answer with the resulting text only — no preamble, no explanation, no surrounding quotes or code fence.";

export function assistInstructions(mode: AssistMode, language?: string): string {
  const task = TASKS[mode].replace("{language}", language ?? "English");
  const lang = mode !== "translate" && language ? ` Write in ${language}.` : "";
  return `${task}${lang} ${RULES}`;
}

export const MODE_TITLES: Record<AssistMode, string> = {
  improve: "Improve writing",
  shorten: "Shorten",
  expand: "Expand",
  fix_grammar: "Fix grammar",
  summarize: "Summarize",
  translate: "Translate",
};
