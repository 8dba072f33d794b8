import { z } from "zod";
import { closedObject, lazyInput } from "../core/validate.ts";

/** Input of the workspace-scoped conflict resolve endpoint (every transport uses this one). */
export const resolveConflictInput = lazyInput(() => closedObject({
  resolution: z.enum(["kept_local", "kept_remote", "custom"]),
  /** The complete file text (frontmatter and body) for `custom`. */
  content: z.string().max(5 * 1024 * 1024, "must be at most 5 MB").optional(),
}).superRefine((v, ctx) => {
  if (v.resolution === "custom" && v.content === undefined) {
    ctx.addIssue({ code: "custom", path: ["content"], message: "is required when resolution is custom" });
  }
  if (v.resolution !== "custom" && v.content !== undefined) {
    ctx.addIssue({ code: "custom", path: ["content"], message: "is only accepted with resolution custom" });
  }
}));


// ---- inbound push webhooks: the providers' payloads, reduced to what Quire reads ----

/** GitHub `push` (https://docs.github.com/webhooks/webhook-events-and-payloads#push). */
export const githubPushSchema = lazyInput(() => z.object({
  ref: z.string().min(1),
  after: z.string().optional(),
  deleted: z.boolean().optional(),
}));

/** GitLab `Push Hook` (object_kind "push"); `ref` is `refs/heads/<branch>`, `after` the new tip. */
export const gitlabPushSchema = lazyInput(() => z.object({
  object_kind: z.string(),
  ref: z.string().min(1).optional(),
  after: z.string().optional(),
}));

/** Bitbucket Cloud `repo:push`: `push.changes[].new` is null when a branch was deleted. */
export const bitbucketPushSchema = lazyInput(() => z.object({
  push: z.object({
    changes: z.array(
      z.object({
        new: z
          .object({ type: z.string(), name: z.string(), target: z.object({ hash: z.string().optional() }).partial().optional() })
          .nullable()
          .optional(),
        old: z.object({ type: z.string(), name: z.string() }).nullable().optional(),
      }),
    ),
  }),
}));
