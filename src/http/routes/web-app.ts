import { Elysia } from "elysia";
import { randomBytes } from "node:crypto";
import { gzipSync } from "bun";
import type { Services } from "../../services.ts";
import { httpCore } from "../core.ts";
import { NotFoundError } from "../../core/errors.ts";
import { ASSET_PREFIX, loadWebApp, type WebFile } from "../../web/build-web.ts";
import { appCsp, shellHtml } from "../../web/shell-html.ts";
import { DIAGRAM_FRAME_PATH, MERMAID_PATH, diagramFrameCsp, diagramFrameHtml } from "../../web/diagram-frame.ts";
import { authConfigOf } from "./auth-config.ts";

/** Paths that belong to the API, the WebSocket and published sites: never answered with the app. */
const NOT_APP = /^\/(api|ws|p|mcp|metrics)(\/|$)/;

/**
 * The browser app: hashed assets under /_app/ (cached for a year, gzip when accepted) and the
 * HTML shell for every other GET that is not an API, WebSocket or site path, so deep links work.
 */
export function webAppRoutes(services: Services) {
  const serveFile = (file: WebFile, request: Request) => {
    const gzip = file.gzip && /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");
    return new Response(gzip ? file.gzip : file.body, {
      headers: {
        "content-type": file.type,
        "cache-control": "public, max-age=31536000, immutable",
        "x-content-type-options": "nosniff",
        vary: "Accept-Encoding",
        ...(gzip ? { "content-encoding": "gzip" } : {}),
      },
    });
  };

  const shell = async (path: string) => {
    if (NOT_APP.test(path)) throw new NotFoundError("No such endpoint");
    const app = await loadWebApp();
    const nonce = randomBytes(18).toString("base64");
    return new Response(shellHtml(app, nonce, { ...authConfigOf(services), version: services.version }, path), {
      headers: {
        "content-type": "text/html; charset=utf-8",
        "content-security-policy": appCsp(nonce),
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
        "referrer-policy": "same-origin",
      },
    });
  };

  // Mermaid for the editor's diagram previews: the site's own vendor file, read on first use and
  // addressed by a digest of its bytes so it can be cached for good.
  let mermaid: Promise<{ file: WebFile; url: string }> | undefined;
  const mermaidFile = () => {
    // Loaded on first use: a start of the server does not load the site's asset modules.
    const { readSiteAsset } = require("../../publish/site/site-assets.ts") as typeof import("../../publish/site/site-assets.ts");
    mermaid ??= readSiteAsset("mermaid.js").then((bytes) => {
      if (!bytes) throw new NotFoundError("No such asset");
      const body = new Uint8Array(bytes) as Uint8Array<ArrayBuffer>;
      const gzip = gzipSync(body) as Uint8Array<ArrayBuffer>;
      return { file: { body, gzip, type: "text/javascript; charset=utf-8" }, url: `${MERMAID_PATH}?v=${Bun.hash(body).toString(36)}` };
    });
    mermaid.catch(() => (mermaid = undefined));
    return mermaid;
  };

  return new Elysia({ name: "quire-web-app" })
    .use(httpCore(services))
    .get(MERMAID_PATH, async ({ request }) => serveFile((await mermaidFile()).file, request))
    .get(DIAGRAM_FRAME_PATH, async () => {
      const nonce = randomBytes(18).toString("base64");
      return new Response(diagramFrameHtml(nonce, (await mermaidFile()).url), {
        headers: {
          "content-type": "text/html; charset=utf-8",
          "content-security-policy": diagramFrameCsp(nonce),
          "cache-control": "no-store",
          "x-content-type-options": "nosniff",
          "referrer-policy": "no-referrer",
        },
      });
    })
    .get(`${ASSET_PREFIX}*`, async ({ params, request }) => {
      const app = await loadWebApp();
      const file = app.files.get((params as { "*": string })["*"]);
      if (!file) throw new NotFoundError("No such asset");
      return serveFile(file, request);
    })
    .get("/", () => shell("/"))
    .get("/*", ({ path }) => shell(path));
}
