import { ValidationError } from "../core/errors.ts";
import { isUlid } from "../core/ids.ts";

/**
 * Opaque list cursors: the ULID of the last item seen, base64url-wrapped so clients treat it as
 * a token and not as something to build. A cursor that does not decode is a 400 on `cursor`.
 */
export const encodeCursor = (id: string): string => Buffer.from(`c1:${id}`).toString("base64url");

export function decodeCursor(cursor: string | undefined): string | null {
  if (cursor === undefined || cursor === "") return null;
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const id = text.startsWith("c1:") ? text.slice(3) : "";
  if (!isUlid(id)) throw new ValidationError("cursor: is not a cursor this endpoint returned", "cursor");
  return id;
}
