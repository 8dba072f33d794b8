/**
 * The OpenAPI 3.1 document of every /api route, generated from the zod schemas the routes (or the
 * services they call) validate with: one schema per input, written once (docs/architecture.md §3), turned
 * into JSON Schema 2020-12 with `z.toJSONSchema` (input side: what a client sends). Answers are
 * described the same way, from the output schemas in the domains' schemas files (OUTPUTS below,
 * published under components.schemas); test/http/openapi.test.ts validates real answers of those
 * routes against the served document, so it cannot drift from what the server sends.
 *
 * Each route's entry lives beside the route, in its file under src/http/routes/ (`…Docs`, keyed
 * "METHOD /path" exactly as the router registers it: `:name` parameters, `*` for a page path; a
 * trailing slash is ignored), so a status or a schema is changed in one place;
 * src/http/routes/openapi.ts assembles them (API_ROUTES). test/http/openapi.test.ts walks the app's
 * registered routes and names every one without an entry.
 */
import { z } from "zod";
import {
  meOutput,
  registerOutput,
  apiKeyOutput,
  apiKeySecretOutput,
  apiKeyListOutput,
  tokenPairOutput,
  userOutput,
  sessionOutput,
  sessionListOutput,
  providerOutput,
  providerListOutput,
  authConfigOutput,
  signInMethodsOutput,
  messageOutput,
  passwordChangedOutput,
} from "../identity/schemas.ts";
import { onboardingOutput } from "../identity/onboarding-schemas.ts";
import { assistOutput, mcpClientConfigOutput } from "../ai/schemas.ts";
import { uploadOutput } from "../content/schemas.ts";
import { commentOutput, commentListOutput } from "../collab/comment-schemas.ts";
import {
  activityOutput,
  activityListOutput,
  templateSummaryOutput,
  templateOutput,
  templateListOutput,
  personOutput,
  personListOutput,
} from "../collab/schemas.ts";
import { viewingOutput, viewingListOutput } from "../realtime/schemas.ts";
import { settingsOutput } from "../workspaces/workspace-schemas.ts";
import {
  memberOutput,
  memberListOutput,
  invitationOutput,
  invitationListOutput,
  shareLinkOutput,
  shareLinkWithTokenOutput,
  shareLinkListOutput,
  shareLinkUseOutput,
  invitationAcceptOutput,
} from "../access/schemas.ts";
import { accessRulesOutput, effectiveAccessOutput, memberAccessOutput, peopleAccessOutput } from "../access/restrictions/schemas.ts";
import { consentOutput, analyticsPagesOutput, analyticsSearchesOutput, analyticsOverviewOutput } from "../analytics/schemas.ts";
import { webhookOutput, webhookWithSecretOutput, webhookListOutput, webhookDeliveryListOutput } from "../webhooks/schemas.ts";
import { healthOutput, readinessOutput } from "../ops/schemas.ts";
import {
  siteStatusOutput,
  livePagesOutput,
  versionOutput,
  versionListOutput,
  customDomainOutput,
  qualityFindingOutput,
  qualityReportOutput,
} from "../publish/schemas.ts";
import { errorOutput } from "../core/schemas.ts";
import { consentOutput as oauthConsentOutput, consentDecisionOutput, grantListOutput, grantOutput, registrationOutput, tokenOutput } from "../oauth/schemas.ts";
import { pageOutput, sharedPageOutput, treeNodeOutput, treeOutput, treeQuery } from "../content/schemas.ts";
import { workspaceOutput, workspaceListOutput } from "../workspaces/workspace-schemas.ts";
import { searchOutput } from "../search/schemas.ts";
import { historyOutput, versionContentOutput, diffOutput, trashOutput, changesOutput, blameOutput } from "../history/schemas.ts";

type Auth = "bearer" | "public" | "webhook-signature" | "ws-cookie";

interface RouteDoc {
  summary: string;
  tag: string;
  /** Who may call it: bearer (access token or API key, the default), public, or a signed payload. */
  auth?: Auth;
  body?: z.ZodType;
  /** Request body media type when not JSON. */
  bodyType?: "multipart/form-data" | "application/octet-stream" | "application/x-www-form-urlencoded";
  query?: z.ZodType;
  /** Path parameters' schema, when the route validates them (otherwise each is a string). */
  params?: z.ZodType;
  /** Success status (200 unless said). */
  status?: number;
  /** The success answer's schema: one of OUTPUTS (documented by reference). */
  response?: z.ZodType;
  /** Also answers 201, with the same body, when it creates what it was asked to change (PUT on a missing page). */
  createdStatus?: boolean;
  /** Success media type when not JSON. */
  produces?: string;
  /** Cloud edition only: 404 NOT_FOUND in Community. */
  cloud?: boolean;
  /** Depends on an outside service (the payment provider): 503 SERVICE_UNAVAILABLE when it is not set up or refuses. */
  external?: boolean;
}

/** The documented routes, keyed "METHOD /path" exactly as the router registers them. */
export type RouteDocs = Record<string, RouteDoc>;

/** The table's key for a registered route: the method and the path without a trailing slash. */
export function routeKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path.length > 1 ? path.replace(/\/+$/, "") : path}`;
}

/**
 * The registered /api routes the table lacks, and the table's entries with no route behind them,
 * each as "METHOD /path" (sorted): what the coverage test reports.
 */
export function routeCoverage(documented: RouteDocs, routes: ReadonlyArray<{ method: string; path: string }>): { missing: string[]; stale: string[] } {
  // Every /api route must be documented; a documented route outside /api (a site's MCP endpoint) must exist too.
  const all = routes.filter((r) => r.method !== "WS");
  const api = new Set(all.filter((r) => r.path.startsWith("/api/")).map((r) => routeKey(r.method, r.path)));
  const registered = new Set(all.map((r) => routeKey(r.method, r.path)));
  return {
    missing: [...api].filter((key) => !(key in documented)).sort(),
    stale: Object.keys(documented).filter((key) => !registered.has(key)).sort(),
  };
}

const toSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;

/** `/a/:id/*` → `/a/{id}/{path}` */
function openApiPath(path: string): { path: string; params: string[] } {
  const params: string[] = [];
  const out = path.replace(/:([A-Za-z_][A-Za-z0-9_]*)|\*$/g, (_m, name?: string) => {
    const p = name ?? "path";
    params.push(p);
    return `{${p}}`;
  });
  return { path: out, params };
}

/**
 * The named answer schemas, published under components.schemas and referenced by the routes (and
 * by every error answer). Each comes from its domain's schemas file; nothing here is hand-written.
 */
export const OUTPUTS: ReadonlyArray<readonly [string, z.ZodType]> = [
  ["Error", errorOutput],
  ["User", userOutput],
  ["Me", meOutput],
  ["TokenPair", tokenPairOutput],
  ["Registration", registerOutput],
  ["ApiKey", apiKeyOutput],
  ["ApiKeyWithSecret", apiKeySecretOutput],
  ["ApiKeyList", apiKeyListOutput],
  ["Page", pageOutput],
  ["TreeNode", treeNodeOutput],
  ["Tree", treeOutput],
  ["Workspace", workspaceOutput],
  ["WorkspaceList", workspaceListOutput],
  ["SearchResults", searchOutput],
  ["Comment", commentOutput],
  ["CommentList", commentListOutput],
  ["Activity", activityOutput],
  ["ActivityList", activityListOutput],
  ["History", historyOutput],
  ["PageVersion", versionContentOutput],
  ["PageDiff", diffOutput],
  ["Trash", trashOutput],
  ["Blame", blameOutput],
  ["Changes", changesOutput],
  ["Member", memberOutput],
  ["MemberList", memberListOutput],
  ["Health", healthOutput],
  ["Readiness", readinessOutput],
  ["Settings", settingsOutput],
  ["Invitation", invitationOutput],
  ["InvitationList", invitationListOutput],
  ["ShareLink", shareLinkOutput],
  ["ShareLinkWithToken", shareLinkWithTokenOutput],
  ["ShareLinkList", shareLinkListOutput],
  ["ShareLinkUse", shareLinkUseOutput],
  ["SharedPage", sharedPageOutput],
  ["AccessRules", accessRulesOutput],
  ["EffectiveAccess", effectiveAccessOutput],
  ["MemberAccess", memberAccessOutput],
  ["PeopleAccess", peopleAccessOutput],
  ["InvitationAcceptance", invitationAcceptOutput],
  ["Webhook", webhookOutput],
  ["WebhookWithSecret", webhookWithSecretOutput],
  ["WebhookList", webhookListOutput],
  ["WebhookDeliveryList", webhookDeliveryListOutput],
  ["SiteStatus", siteStatusOutput],
  ["LivePages", livePagesOutput],
  ["Version", versionOutput],
  ["VersionList", versionListOutput],
  ["CustomDomain", customDomainOutput],
  ["Consent", consentOutput],
  ["AnalyticsPages", analyticsPagesOutput],
  ["AnalyticsSearches", analyticsSearchesOutput],
  ["AnalyticsOverview", analyticsOverviewOutput],
  ["QualityFinding", qualityFindingOutput],
  ["QualityReport", qualityReportOutput],
  ["Onboarding", onboardingOutput],
  ["TemplateSummary", templateSummaryOutput],
  ["Template", templateOutput],
  ["TemplateList", templateListOutput],
  ["Person", personOutput],
  ["PersonList", personListOutput],
  ["Viewing", viewingOutput],
  ["ViewingList", viewingListOutput],
  ["Session", sessionOutput],
  ["SessionList", sessionListOutput],
  ["Provider", providerOutput],
  ["ProviderList", providerListOutput],
  ["AuthConfig", authConfigOutput],
  ["SignInMethods", signInMethodsOutput],
  ["Message", messageOutput],
  ["PasswordChanged", passwordChangedOutput],
  ["Upload", uploadOutput],
  ["Assist", assistOutput],
  ["McpClientConfig", mcpClientConfigOutput],
  ["OAuthToken", tokenOutput],
  ["OAuthClientRegistration", registrationOutput],
  ["OAuthConsent", oauthConsentOutput],
  ["OAuthConsentDecision", consentDecisionOutput],
  ["ConnectedApp", grantOutput],
  ["ConnectedAppList", grantListOutput],
];

const outputRegistry = z.registry<{ id: string }>();
for (const [id, schema] of OUTPUTS) outputRegistry.add(schema, { id });
const componentRef = (id: string) => `#/components/schemas/${id}`;

/** components.schemas: every output schema as JSON Schema 2020-12, cross-referenced by name. */
function outputComponents(): Record<string, Record<string, unknown>> {
  const { schemas } = z.toJSONSchema(outputRegistry, { io: "output", uri: componentRef, unrepresentable: "any" }) as {
    schemas: Record<string, Record<string, unknown>>;
  };
  for (const schema of Object.values(schemas)) {
    // Standalone-document keys that do not belong inside an OpenAPI component.
    delete schema.$schema;
    delete schema.$id;
  }
  return schemas;
}

/** The reference to a route's answer schema; a schema outside OUTPUTS is a mistake in the table. */
function responseRef(key: string, schema: z.ZodType): { $ref: string } {
  const id = outputRegistry.get(schema)?.id;
  if (!id) throw new Error(`${key}: its response schema is not one of OUTPUTS in src/http/openapi.ts`);
  return { $ref: componentRef(id) };
}

const ERROR_ANSWERS: Record<string, string> = {
  "400": "VALIDATION_ERROR: invalid body or parameters",
  "401": "UNAUTHORIZED: missing or invalid credentials (on sign-in: wrong email or password, the same answer for every cause; on a webhook: a missing or invalid signature)",
  "403": "FORBIDDEN, PLAN_LIMIT_REACHED, PLAN_LIMIT or SIGNUP_DISABLED",
  "404": "NOT_FOUND (also every Cloud-only route in the Community edition)",
  "409": "CONFLICT (a page update's conflict adds current_hash, your_hash, modified_by, modified_at)",
  "413": "PAYLOAD_TOO_LARGE",
  "429": "RATE_LIMITED (X-RateLimit-* and Retry-After headers)",
  "500": "INTERNAL_ERROR: a failure on the server (nothing internal is named)",
  "503": "SERVICE_UNAVAILABLE: an outside service this route needs is not set up or refused, or (a write) the server's storage is read-only and nothing was saved",
  "507": "INSUFFICIENT_STORAGE: the server's disk is full or over quota; nothing was saved",
};

/** The document of the routes given (src/http/routes/openapi.ts gives every route's entry). */
export function openApiDocument(routes: RouteDocs, opts: { version: string; baseUrl: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const errorRef = { $ref: componentRef("Error") };
  for (const [key, doc] of Object.entries(routes).sort(([a], [b]) => a.localeCompare(b))) {
    const [method, rawPath] = key.split(" ") as [string, string];
    const { path, params } = openApiPath(rawPath);
    const paramSchemas = doc.params ? ((toSchema(doc.params) as { properties?: Record<string, unknown> }).properties ?? {}) : {};
    const parameters: Record<string, unknown>[] = params.map((name) => ({
      name,
      in: "path",
      required: true,
      schema: paramSchemas[name] ?? { type: "string" },
      ...(name === "path" ? { description: "The page's file path inside the workspace (e.g. guide/intro.md)" } : {}),
    }));
    if (doc.query) {
      const js = toSchema(doc.query) as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, schema] of Object.entries(js.properties ?? {})) {
        parameters.push({ name, in: "query", required: js.required?.includes(name) ?? false, schema });
      }
    }
    const status = String(doc.status ?? 200);
    const success = (description: string) =>
      status === "204"
        ? { description: "Done; no content" }
        : {
            description,
            content: {
              [doc.produces ?? "application/json"]: {
                schema: doc.produces ? { type: "string" } : doc.response ? responseRef(key, doc.response) : { type: "object" },
              },
            },
          };
    const responses: Record<string, unknown> = { [status]: success("Success") };
    if (doc.createdStatus) responses["201"] = success("Success: the resource did not exist and was created");
    // Every route that writes may meet a full (507) or read-only (503) disk.
    const writes = method !== "GET" && method !== "HEAD";
    const codes = ["400", "404", "429", "500", ...(doc.auth === "public" && !rawPath.startsWith("/api/auth/") ? [] : ["401", "403"]), ...(doc.body ? ["409", "413"] : []), ...(doc.external || writes ? ["503"] : []), ...(writes ? ["507"] : [])];
    for (const code of codes.sort()) responses[code] = { description: ERROR_ANSWERS[code], content: { "application/json": { schema: errorRef } } };
    const op: Record<string, unknown> = {
      operationId: operationId(method, rawPath),
      summary: doc.summary + (doc.cloud ? " (Cloud edition only; 404 in Community)" : ""),
      tags: [doc.tag],
      parameters,
      responses,
      security: doc.auth === "public" || doc.auth === "webhook-signature" ? [] : [{ bearer: [] }],
    };
    if (doc.body) {
      op.requestBody = { required: true, content: { [doc.bodyType ?? "application/json"]: { schema: toSchema(doc.body) } } };
    }
    (paths[path] ??= {})[method.toLowerCase()] = op;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Quire API",
      version: opts.version,
      description: "The REST API of a Quire instance. Errors share one shape (components.schemas.Error).",
    },
    servers: [{ url: opts.baseUrl }],
    paths,
    components: {
      schemas: outputComponents(),
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "An access token (JWT) or an API key (quire_live_…)" },
      },
    },
  };
}

function operationId(method: string, path: string): string {
  const words = path
    .replace(/^\/api\/(v1\/)?/, "")
    .replace(/\*/g, "page")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return [method.toLowerCase(), ...words.map((w) => w[0]!.toUpperCase() + w.slice(1))].join("");
}
