import { components, type Tokenizer } from "@orama/orama";
import { ENGLISH_STOP_WORDS } from "./stop-words.ts";

/**
 * Orama's English tokenizer (stemming + our stop words) with one change: hyphens, apostrophes and
 * underscores split words. Orama's own splitter keeps them inside tokens, so "page-created" or
 * "api_key" would only ever match as a whole; in documentation people search for the parts.
 */
export function createSearchTokenizer(): Tokenizer {
  const base = components.tokenizer.createTokenizer({
    language: "english",
    stemming: true,
    stopWords: ENGLISH_STOP_WORDS,
  }) as Tokenizer;
  const wrapped = Object.create(base) as Tokenizer;
  wrapped.tokenize = function (input: string, language?: string, prop?: string, withCache?: boolean) {
    const text = typeof input === "string" ? splitJoiners(input) : input;
    return base.tokenize.call(this, text, language, prop, withCache);
  };
  return wrapped;
}

export const splitJoiners = (text: string): string => text.replace(/[-_'\u2019]+/g, " ");

type Normalizer = { normalizeToken(this: Tokenizer, prop: string, token: string, withCache?: boolean): string };

/**
 * Normalises one word the way the index does (stop words, stem, diacritics); "" for a stop word.
 * The word must already be one token in lower case: this skips the splitting that tokenize()
 * does, which matters when every word of a snippet is looked at.
 */
export function normalizeWord(tokenizer: Tokenizer, word: string): string {
  return (tokenizer as unknown as Normalizer).normalizeToken.call(tokenizer, "body", word, true);
}
