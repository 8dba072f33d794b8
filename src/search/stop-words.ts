/**
 * English stop words dropped from queries (the index keeps them: FTS5 has no stop-word list, and
 * keeping them costs little). The list is short on purpose: documentation searches for words
 * such as "not", "when" or "first" matter.
 */
export const ENGLISH_STOP_WORDS: string[] = [
  "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "for", "from", "had", "has",
  "have", "he", "her", "his", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of",
  "on", "or", "our", "she", "so", "such", "than", "that", "the", "their", "them", "then",
  "there", "these", "they", "this", "those", "to", "us", "was", "we", "were", "which", "will",
  "with", "you", "your",
];
