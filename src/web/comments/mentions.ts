/** Finding the @mention being typed before the caret, and replacing it with a chosen name. */
import type { Person } from "../app/people.ts";

export interface MentionQuery {
  /** Index of the "@". */
  at: number;
  text: string;
}

export function mentionAt(value: string, caret: number): MentionQuery | null {
  const before = value.slice(0, caret);
  const m = /(^|[^\p{L}\p{N}_])@([\p{L}\p{N}_.'-]*(?: [\p{L}\p{N}_.'-]*)?)$/u.exec(before);
  if (!m) return null;
  return { at: before.length - m[2]!.length - 1, text: m[2]! };
}

export function matchPeople(people: Person[], query: string, limit = 6): Person[] {
  const q = query.toLowerCase();
  return people.filter((p) => p.name.toLowerCase().split(/\s+/).some((w) => w.startsWith(q)) || p.name.toLowerCase().startsWith(q)).slice(0, limit);
}

export function insertMention(value: string, caret: number, q: MentionQuery, person: Person): { value: string; caret: number } {
  const inserted = `@${person.name} `;
  const next = value.slice(0, q.at) + inserted + value.slice(caret);
  return { value: next, caret: q.at + inserted.length };
}
