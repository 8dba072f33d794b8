/**
 * A release could not be found, fetched, verified or put in place. Nothing was replaced: the
 * message says what failed and, for a checksum, both hashes.
 */
export class ReleaseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReleaseError";
  }
}
