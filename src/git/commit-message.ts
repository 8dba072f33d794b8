/**
 * User text that ends up in a commit: paths in messages and the author's name and email in the
 * commit header. A commit message is free text, but a path holding a line break (a file created
 * on disk may be named anything) would forge message lines such as trailers; a name or email
 * holding `<`, `>` or a line break would corrupt the author line (`git fsck` refuses such commits).
 */

/** Who a commit is by (the acting person, or Quire itself). */
export interface Author {
  name: string;
  email: string;
}

/** Control characters and bidi overrides, which could hide or forge what a message line says. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** A path as a message shows it: as is when plain, else quoted with escapes the way `git status` does. */
export function commitPath(path: string): string {
  if (!UNSAFE.test(path) && !path.startsWith('"')) return path;
  return JSON.stringify(path).replace(/[\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** A name or email git can put in a header: no angle brackets, no control characters, trimmed. */
function identPart(value: string): string {
  return value.replace(/[<>\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, "").trim();
}

export function gitIdent(author: Author, fallback: Author): Author {
  return { name: identPart(author.name) || fallback.name, email: identPart(author.email) || fallback.email };
}
