import { ValidationError } from "./errors.ts";


export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** Cursors are opaque to clients: the sort key of the last item, base64url-encoded JSON. */
export function encodeCursor(key: string[]): string {
  return Buffer.from(JSON.stringify(key)).toString("base64url");
}

export function decodeCursor(cursor: string | undefined, parts: number): string[] | null {
  if (cursor === undefined || cursor === "") return null;
  try {
    const key: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(key) && key.length === parts && key.every((k) => typeof k === "string")) return key as string[];
  } catch {
    // fall through to the validation error
  }
  throw new ValidationError("cursor is not a value returned by this list", "cursor");
}

/** Fetch `limit + 1` rows, then call this: the extra row only tells whether a next page exists. */
export function pageOf<R, T>(rows: R[], limit: number, keyOf: (row: R) => string[], present: (row: R) => T): Page<T> {
  const more = rows.length > limit;
  const shown = more ? rows.slice(0, limit) : rows;
  return {
    items: shown.map(present),
    next_cursor: more && shown.length > 0 ? encodeCursor(keyOf(shown[shown.length - 1]!)) : null,
  };
}
