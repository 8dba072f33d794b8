/** The instance's readiness (/api/ready), read for the administrators' storage banner. */
import { ApiError, get } from "./client.ts";
import type * as Api from "./openapi-types.ts";

export type StorageCheck = NonNullable<Api.Readiness["checks"]["storage"]>;

/**
 * The storage check of /api/ready; null when the server does not report one or cannot be asked.
 * A not-ready instance answers 503 with the same body, so its checks are read from the error.
 */
export async function readStorageCheck(): Promise<StorageCheck | null> {
  try {
    return (await get<Api.Readiness>("/api/ready")).checks.storage ?? null;
  } catch (e) {
    if (e instanceof ApiError && e.status === 503) return (e.body as Partial<Api.Readiness>).checks?.storage ?? null;
    return null;
  }
}
