import { z } from "zod";
import { lazyOutput } from "../core/schemas.ts";
import { closedObject, lazyInput } from "../core/validate.ts";
import { THEMES, VISIBILITIES, customDomain } from "../workspaces/workspace-schemas.ts";

/** Input schemas of the published site (HTTP routes and MCP tools validate with these). */

const themeName = lazyInput(() => z.enum(THEMES));

export const updateThemeInput = lazyInput(() => closedObject({ theme: themeName }));

export const publishWorkspaceInput = lazyInput(() => closedObject({
  published: z.boolean().optional(),
  visibility: z.enum(VISIBILITIES).optional(),
}));

/** A version slug: one URL segment, lowercase (v1, 2.0, next). */
const versionSlug = lazyInput(() => z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(40, "must be at most 40 characters")
  .regex(/^[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?$/, "must be lowercase letters, digits, '.', '_' or '-' (e.g. v1, 2.0)")
  .refine((s) => !RESERVED_SITE_SEGMENTS.has(s), "is a reserved site path"));

/** First segments the site itself answers, so no version (or page route) may take them. */
export const RESERVED_SITE_SEGMENTS = new Set([
  "search",
  "sitemap.xml",
  "robots.txt",
  "rss.xml",
  "llms.txt",
  "llms-full.txt",
  "manifest.json",
  "nav.json",
  "site-map",
  "_quire",
  "assets",
]);

/** A folder inside the workspace: relative, `/`-separated, no dot segments. */
const basePath = lazyInput(() => z
  .string()
  .trim()
  .max(200, "must be at most 200 characters")
  .transform((s) => s.replace(/^\/+|\/+$/g, ""))
  .refine((s) => s !== "" && s.split("/").every((seg) => seg !== "" && !seg.startsWith(".") && !/[\\\u0000-\u001f<>:"|?*%]/.test(seg)), {
    message: "must be a folder path inside the workspace (e.g. versions/v1)",
  })
  .refine((s) => s.split("/")[0]!.toLowerCase() !== "assets", "must not be under assets/"));

export const createVersionInput = lazyInput(() => closedObject({
  slug: versionSlug,
  name: z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters"),
  /** Defaults to `versions/{slug}`. */
  base_path: basePath.optional(),
  /** Copy the current published pages into base_path (new ids, through the ledger). */
  snapshot: z.boolean().optional(),
  is_default: z.boolean().optional(),
}));

export const setCustomDomainInput = lazyInput(() => closedObject({ domain: customDomain }));

export const siteSearchQuery = lazyInput(() => z.object({
  q: z.string().max(200, "must be at most 200 characters").default(""),
  limit: z.coerce.number().int().min(1).max(50).default(10),
}));

/** GET /api/v1/workspaces/:id/quality query (and the MCP quality tools' `path`). */
export const qualityQuery = lazyInput(() => z.object({
  path: z.string().min(1, "must not be empty").max(1024, "must be at most 1024 characters").optional(),
}));

const absoluteHttpUrl = lazyInput(() => z
  .string()
  .trim()
  .max(2000, "must be at most 2000 characters")
  .refine((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === "http:" || u.protocol === "https:") && u.username === "" && u.password === "" && !u.search && !u.hash;
    } catch {
      return false;
    }
  }, "must be an absolute http(s) URL without credentials, query or fragment"));

/** GET|POST /api/v1/workspaces/:id/export (query or JSON body) and `quire export --base-url`. */
export const exportInput = lazyInput(() => z.object({
  /** Where the exported site will live: sitemap.xml and canonical links use it. */
  base_url: absoluteHttpUrl.optional(),
}));

/** GET /api/v1/exports/:token — a prepared export's download (MCP's quire_export hands out its URL). */
export const exportDownloadParams = lazyInput(() => z.object({
  token: z.string().regex(/^[A-Za-z0-9_-]{43}$/, "is not a download token"),
}));

// ---- outputs: what the site endpoints answer (the OpenAPI document is generated from these) ----

/** A named documentation version. */
export const versionOutput = lazyOutput(() => z.object({
  slug: z.string(),
  name: z.string(),
  base_path: z.string().describe("The folder whose pages the version shows"),
  is_default: z.boolean(),
  created_at: z.iso.datetime(),
}));

/** GET /api/v1/workspaces/:id/versions: every version (a short list, one page), the default first. */
export const versionListOutput = lazyOutput(() => z.object({ items: z.array(versionOutput) }));

export const DOMAIN_STATUSES = ["pending", "verified", "failed"] as const;

/** The custom domain and the TXT record that proves it. */
export const customDomainOutput = lazyOutput(() => z.object({
  domain: z.string(),
  status: z.enum(DOMAIN_STATUSES),
  verification: z.object({ type: z.literal("TXT"), name: z.string().describe("_quire-challenge.{domain}"), value: z.string() }),
  checked_at: z.iso.datetime().nullable(),
  verified_at: z.iso.datetime().nullable(),
  error: z.string().nullable().describe("Why the last check failed, in words"),
}));

/** GET /api/v1/workspaces/:id/site: everything the Site screen shows. */
export const siteStatusOutput = lazyOutput(() => z.object({
  workspace_id: z.string(),
  slug: z.string(),
  published: z.boolean(),
  visibility: z.enum(VISIBILITIES).describe("The stored setting"),
  effective_visibility: z.enum(VISIBILITIES).describe("What readers get: authenticated whenever PUBLISH_REQUIRE_AUTH is on"),
  require_auth: z.boolean(),
  theme: z.enum(THEMES),
  url: z.string(),
  page_count: z.number().int(),
  custom_domain: customDomainOutput.nullable(),
  versions: z.array(versionOutput),
  problems: z.array(z.string()).describe("Manifest problems (malformed .quire/*.yaml), which the site ignores"),
}));

/** GET /api/v1/workspaces/:id/site/pages: which pages are live, and where. */
export const livePagesOutput = lazyOutput(() => z.object({
  published: z.boolean(),
  url: z.string(),
  pages: z.array(z.object({ path: z.string(), url: z.string() })),
}));

/** One problem the quality scan found on a page. */
export const qualityFindingOutput = lazyOutput(() => z.object({
  path: z.string(),
  kind: z.enum(["dead_link", "missing_title", "missing_description", "empty_page", "orphan_page", "image_without_alt", "heading_skip", "long_paragraph", "readability"]),
  severity: z.enum(["error", "warning", "info"]),
  message: z.string(),
  line: z.number().int().min(1).optional().describe("1-based line in the page's body (after the frontmatter), when the finding has one"),
}));

/** GET /api/v1/workspaces/:id/quality: the scores and findings (one page's with ?path=). */
export const qualityReportOutput = lazyOutput(() => z.object({
  score: z.number().min(0).max(100).describe("The mean of the pages' scores (100 with no pages)"),
  pages: z.array(z.object({ path: z.string(), score: z.number().min(0).max(100), findings: z.array(qualityFindingOutput) })),
  findings: z.array(qualityFindingOutput),
}));
