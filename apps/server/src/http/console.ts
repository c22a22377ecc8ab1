/**
 * The web console (apps/console/dist) at `/`: hashed assets cached for a year, `index.html` for every other
 * page path (the console routes in the browser) and revalidated at each load, all under a Content-Security-Policy
 * that lets only the server's own scripts run (no inline script, no eval) and the page talk only to this origin.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Context, Hono } from "hono";
import { ApiError } from "../errors.ts";
import type { AppEnv } from "./env.ts";

export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' https: data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const CONTENT_TYPES: Record<string, string> = {
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  woff2: "font/woff2",
  map: "application/json",
};

/** What Vite names a built asset: a name, a hash and a known extension; nothing else is read from disk. */
const ASSET_NAME = /^[\w-]+\.(js|css|svg|png|woff2|map)$/;

const notBuilt = () =>
  new ApiError("RESOURCE_NOT_FOUND", "The console is not built: run `pnpm --filter @pharos/console build`.");

function secure(c: Context<AppEnv>, csp = CONSOLE_CSP) {
  c.header("Content-Security-Policy", csp);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "no-referrer");
}

/** Registers the console's routes; call after the API's so that `/v2/…` is never answered with the page. */
export function serveConsole(app: Hono<AppEnv>, directory: string | undefined): void {
  app.get("/assets/:file", (c) => {
    const file = c.req.param("file");
    const extension = ASSET_NAME.exec(file)?.[1];
    const path = directory && extension ? join(directory, "assets", file) : undefined;
    if (!path || !existsSync(path)) throw new ApiError("RESOURCE_NOT_FOUND", "No such console file.");
    secure(c);
    c.header("Content-Type", CONTENT_TYPES[extension as string]);
    c.header("Cache-Control", "public, max-age=31536000, immutable");
    return c.body(readFileSync(path));
  });
  app.get("*", async (c, next) => {
    const path = c.req.path;
    // API paths keep their JSON 404; so do paths that name a file (a dot in the last segment).
    if (path === "/v2" || path.startsWith("/v2/") || /\.[^/]*$/.test(path)) return next();
    const index = directory && join(directory, "index.html");
    if (!index || !existsSync(index)) throw notBuilt();
    // The code editor (CodeMirror) writes its styles into a <style> element; a nonce fresh for each page load lets
    // those in, and nothing else inline. The page reads it from the meta tag (the nonce attribute is hidden).
    const nonce = randomBytes(16).toString("base64");
    secure(c, CONSOLE_CSP.replace("style-src 'self'", `style-src 'self' 'nonce-${nonce}'`));
    c.header("Cache-Control", "no-cache");
    const page = readFileSync(index, "utf8").replace("<head>", `<head><meta name="csp-nonce" content="${nonce}">`);
    return c.html(page);
  });
}
