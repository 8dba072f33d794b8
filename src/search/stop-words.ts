/**
 * English stop words dropped from both the index and queries. Orama's core ships the stemmer but
 * no stop-word list (that lives in a separate package), so the list is kept here. It is kept
 * short on purpose: documentation searches for words such as "not", "when" or "first" matter.
 */
export const ENGLISH_STOP_WORDS: string[] = [
  "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "for", "from", "had", "has",
  "have", "he", "her", "his", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of",
  "on", "or", "our", "she", "so", "such", "than", "that", "the", "their", "them", "then",
  "there", "these", "they", "this", "those", "to", "us", "was", "we", "were", "which", "will",
  "with", "you", "your",
];
