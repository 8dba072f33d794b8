import { createMcpHandler, McpServer, type StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { Principal } from "../core/principal.ts";
import { MAX_BODY_BYTES } from "../core/net/body-limit.ts";
import type { Services } from "../services.ts";
import { SiteReader, type SitePlace } from "../publish/site-mcp/site-reader.ts";
import { toolError } from "./errors.ts";
import { VERSION } from "../version.ts";

/** At most this much of a page per call; `offset` reads on. */
const MAX_PAGE_CHARS = 20_000;

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
const version = z.string().regex(/^[a-z0-9-]{1,64}$/).optional().describe("A version of the site (its slug); the default version when left out");
const inputs = {
  site_search: z.strictObject({ query: z.string().min(1).max(200).describe("Words to find"), limit: z.number().int().min(1).max(50).default(10), version }),
  site_read_page: z.strictObject({
    path: z.string().min(1).max(512).describe("The page's path as site_list_pages or site_search give it (e.g. guides/intro.md)"),
    offset: z.number().int().min(0).default(0),
    max_chars: z.number().int().min(1).max(MAX_PAGE_CHARS).default(MAX_PAGE_CHARS),
    version,
  }),
  site_list_pages: z.strictObject({ version }),
  site_get_tree: z.strictObject({ version }),
  site_get_llms_txt: z.strictObject({ version }),
};

interface SiteCall {
  slug: string;
  principal: Principal | null;
  place: SitePlace | undefined;
}

/**
 * The published site's MCP server (`POST /p/{slug}/mcp`, docs/decisions/site-mcp.md): read-only
 * tools named `site_`, each answering from the site's own read model (publish/site-mcp/), for the
 * reader who sent the request. Its own module, loaded by the first such request, like the
 * workspace endpoint's (http-handler.ts).
 */
export function siteMcpHandler(services: Services) {
  const reader = new SiteReader({ site: services.site, search: services.search, baseUrl: services.config.baseUrl });
  const mcp = siteMcpServer(services, reader);
  return {
    /**
     * Answers one request; a site this reader cannot see is NOT_FOUND (404) before any MCP
     * exchange. `place`: a verified custom domain the request came by (its URLs in the answers).
     */
    handle(request: Request, slug: string, principal: Principal | null, place?: SitePlace): Promise<Response> {
      reader.open(slug, principal, undefined, place);
      const extra: SiteCall = { slug, principal, place };
      return mcp.fetch(request, { authInfo: { token: "", clientId: "site-reader", scopes: ["read"], extra: extra as unknown as Record<string, unknown> } });
    },
    close: () => mcp.close(),
  };
}

function siteMcpServer(services: Services, reader: SiteReader) {
  return createMcpHandler(
    (ctx) => {
      const call = ctx.authInfo?.extra as unknown as SiteCall;
      const server = new McpServer(
        { name: `quire-site-${call.slug}`, title: "Published documentation", version: VERSION },
        {
          instructions: "Read-only access to one published documentation site: site_search finds pages by words, site_read_page returns a page's Markdown, site_list_pages and site_get_tree show what the site holds, site_get_llms_txt its llms.txt index.",
          capabilities: { tools: { listChanged: false } },
        },
      );
      const tool = <K extends keyof typeof inputs>(name: K, title: string, description: string, run: (args: z.infer<(typeof inputs)[K]>) => unknown) =>
        server.registerTool(name, { title, description, inputSchema: inputs[name] as unknown as StandardSchemaWithJSON, annotations: READ_ONLY }, (raw: unknown) => {
          const args = raw as z.infer<(typeof inputs)[K]>;
          try {
            const value = run(args);
            const structured = typeof value === "string" ? { text: value } : Array.isArray(value) ? { items: value } : (value as Record<string, unknown>);
            return { content: [{ type: "text" as const, text: typeof value === "string" ? value : JSON.stringify(value) }], structuredContent: structured };
          } catch (error) {
            return toolError(error, name, args as Record<string, unknown>, services.log);
          }
        });
      const open = (v: string | undefined) => reader.open(call.slug, call.principal, v, call.place);
      tool("site_search", "Search the site", "Find published pages of this site by words; returns path, title, URL and a snippet for each.", (a) => open(a.version).search(a.query, a.limit));
      tool("site_read_page", "Read a page", "A published page's Markdown (at most max_chars from offset; next_offset reads on).", (a) => open(a.version).readPage(a.path, a.offset, a.max_chars));
      tool("site_list_pages", "List the pages", "Every published page of the site: path, title, description, URL.", (a) => open(a.version).listPages());
      tool("site_get_tree", "The site's navigation", "The site's navigation tree: sections, pages and links, in order.", (a) => open(a.version).tree());
      tool("site_get_llms_txt", "The llms.txt index", "The site's llms.txt: its name, description and a link to each page's Markdown.", (a) => open(a.version).llmsTxt());
      return server;
    },
    { maxRequestBodySize: MAX_BODY_BYTES, onerror: (error) => services.log.debug("site mcp request refused", { error: error.message }) },
  );
}
