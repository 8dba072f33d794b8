import { z } from "zod";
import { lazyOutput } from "../../core/schemas.ts";
import { closedObject, lazyInput } from "../../core/validate.ts";
import { ACCESS_LEVELS } from "./levels.ts";
import { MAX_ENTRIES } from "./rules.ts";

/** Inputs and answers of the access endpoints and tools (docs/decisions/restricted-folders.md). */

/** A function, not one shared schema: each use describes its own copy. */
const rulePath = () => z.string().min(1, "must not be empty").max(1024);

const accessEntry = lazyInput(() => closedObject({
  who: z.string().min(1, "must not be empty").max(320).describe("email, group:admins|editors|everyone, link:anyone"),
  level: z.enum(ACCESS_LEVELS),
}));

export const setAccessInput = lazyInput(() => closedObject({
  path: rulePath().describe("folder/ or page.md"),
  entries: z.array(accessEntry).max(MAX_ENTRIES, `at most ${MAX_ENTRIES} entries`).describe("[] lifts it"),
  confirm_private_remote: z.boolean().optional().describe("the git remote is private"),
}));

export const effectiveAccessQuery = lazyInput(() => z.object({ path: rulePath() }));

const accessEntryOutput = lazyOutput(() => z.object({ who: z.string(), level: z.enum(ACCESS_LEVELS) }));

export const accessRulesOutput = lazyOutput(() => z.object({
  restricted: z.record(z.string(), z.array(accessEntryOutput)),
  /** Why the last `.quire/access.yaml` from git was refused (the rules above stay in force); null when none was. */
  refused: z.string().nullable(),
}));

/** GET …/access/members: each member's level on one folder or page (admins). */
/** GET …/access/people: each member's level on every restricted folder and page (the members screen's column). */
export const peopleAccessOutput = lazyOutput(() => z.object({
  items: z.array(
    z.object({
      user_id: z.string(),
      restricted: z.array(z.object({ path: z.string(), level: z.enum(ACCESS_LEVELS).nullable().describe("Capped by their role; null: hidden from them") })),
    }),
  ),
}));

export const memberAccessOutput = lazyOutput(() => z.object({
  path: z.string(),
  /** The folder or page whose rule governs the path; null when unrestricted. */
  from: z.string().nullable(),
  items: z.array(
    z.object({
      user_id: z.string(),
      name: z.string(),
      email: z.string(),
      role: z.enum(["viewer", "commenter", "editor", "admin", "super_admin"]),
      /** Their level there, capped by their role; null: the path is hidden from them. */
      level: z.enum(ACCESS_LEVELS).nullable(),
    }),
  ),
}));

export const effectiveAccessOutput = lazyOutput(() => z.object({
  path: z.string(),
  /** Whether a rule applies to the path (its own or a folder's above it). */
  restricted: z.boolean(),
  /** The list of the rule that governs it (the nearest one), [] when unrestricted. */
  entries: z.array(accessEntryOutput),
  /** The folder or page whose rule that is; null when unrestricted. */
  from: z.string().nullable(),
  /** The caller's own level there. */
  level: z.enum(ACCESS_LEVELS),
}));
