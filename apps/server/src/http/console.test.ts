import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { expectError } from "../testing/expect-error.ts";
import { describeEachStore } from "../testing/harness.ts";

/** A built console as Vite lays it out: index.html and hashed assets. */
function builtConsole() {
  const directory = mkdtempSync(join(tmpdir(), "pharos-console-"));
  mkdirSync(join(directory, "assets"));
  writeFileSync(
    join(directory, "index.html"),
    '<!doctype html><html><head><script type="module" src="/assets/index-Ab12Cd34.js"></script></head><body><div id="root"></div></body></html>',
  );
  writeFileSync(join(directory, "assets", "index-Ab12Cd34.js"), "console.log('console');");
  writeFileSync(join(directory, "assets", "index-Ef56Gh78.css"), "body{margin:0}");
  writeFileSync(join(directory, "secret.txt"), "not an asset");
  return directory;
}

const get = (app: { request: (path: string) => Response | Promise<Response> }, path: string) => app.request(path);

describeEachStore(
  "the console at /",
  (use) => {
    it("answers / and any page path with index.html, revalidated, under a strict CSP", async () => {
      const { app } = use();
      for (const path of ["/", "/prompts", "/traces/trace_01JD8Q4KZ8T6V2M3N4P5Q6R7S8?span=x", "/sign-in"]) {
        const response = await get(app, path);
        expect(response.status, path).toBe(200);
        expect(response.headers.get("Content-Type")).toMatch(/^text\/html/);
        expect(response.headers.get("Cache-Control")).toBe("no-cache");
        const csp = response.headers.get("Content-Security-Policy") ?? "";
        expect(csp).toContain("script-src 'self'");
        expect(csp).toContain("default-src 'self'");
        expect(csp).not.toContain("unsafe-inline");
        expect(csp).not.toContain("unsafe-eval");
        expect(await response.text()).toContain('<div id="root">');
      }
    });

    it("gives each page load a fresh nonce for style elements, in the CSP and in the page's csp-nonce meta tag", async () => {
      const { app } = use();
      const nonces = [];
      for (const path of ["/", "/prompts"]) {
        const response = await get(app, path);
        const nonce = /style-src 'self' 'nonce-([A-Za-z0-9+/=]{24})'/.exec(
          response.headers.get("Content-Security-Policy") ?? "",
        )?.[1];
        expect(nonce, path).toBeDefined();
        expect(await response.text()).toContain(`<meta name="csp-nonce" content="${nonce}">`);
        nonces.push(nonce);
      }
      expect(nonces[0]).not.toBe(nonces[1]);
    });

    it("serves hashed assets with their type, cached for a year as immutable", async () => {
      const { app } = use();
      const script = await get(app, "/assets/index-Ab12Cd34.js");
      expect(script.status).toBe(200);
      expect(script.headers.get("Content-Type")).toBe("text/javascript; charset=utf-8");
      expect(script.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
      expect(await script.text()).toBe("console.log('console');");
      const style = await get(app, "/assets/index-Ef56Gh78.css");
      expect(style.headers.get("Content-Type")).toBe("text/css; charset=utf-8");
    });

    it("404 for a missing asset, a file outside assets/ and a path that climbs out", async () => {
      const { app } = use();
      for (const path of ["/assets/index-missing.js", "/assets/..%2Fsecret.txt", "/assets/secret.txt", "/secret.txt"]) {
        const response = await get(app, path);
        await expectError({ status: response.status, body: await response.json() }, 404, "RESOURCE_NOT_FOUND");
      }
    });

    it("never answers an API path with the page: an unknown one is the API's JSON error", async () => {
      const h = use();
      for (const path of ["/v2/nothing-here", "/v2"]) {
        const reply = await h.request("GET", path.replace(/^\/v2/, ""));
        expect(reply.headers.get("Content-Type")).toMatch(/^application\/json/);
        await expectError(reply, 404, "RESOURCE_NOT_FOUND");
      }
    });

    it("leaves the API and the spec as they were", async () => {
      const h = use();
      expect((await h.request("GET", "/api-keys/current")).status).toBe(200);
      const spec = await get(h.app, "/v2/openapi.json");
      expect(spec.headers.get("Content-Type")).toMatch(/^application\/json/);
    });
  },
  { consoleDir: builtConsole() },
);

describeEachStore(
  "the console when it is not built",
  (use) => {
    it("404 saying how to build it", async () => {
      const response = await get(use().app, "/");
      const body = (await response.json()) as { error: { message: string } };
      await expectError({ status: response.status, body }, 404, "RESOURCE_NOT_FOUND");
      expect(body.error.message).toContain("pnpm --filter @pharos/console build");
    });
  },
  { consoleDir: join(tmpdir(), "pharos-console-never-built") },
);
