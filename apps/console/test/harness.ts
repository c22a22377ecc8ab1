/**
 * What every browser test file shares: a real Pharos server on loopback with a SQLite file serving the built
 * console (`pnpm --filter @pharos/console build`, which turbo runs before these tests), a workspace with a project
 * and keys of each role, Debian's Chromium through playwright-core, and the checks every screen gets: no CSP
 * violation or page error, and axe-core finding no serious or critical violation. Screenshots go to docs/console/
 * for the README.
 */
import { existsSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import {
  type AppOptions,
  adminContext,
  createApiKey,
  createApp,
  createProjectForWorkspace,
  createWorkspace,
} from "@pharos/server";
import { openScratchStore, type ScratchStore } from "@pharos/server/testing";
import axe from "axe-core";
import { type Browser, chromium, type Page } from "playwright-core";
import { expect } from "vitest";

const HERE = dirname(fileURLToPath(import.meta.url));
const CONSOLE_DIR = resolve(HERE, "../dist");
const SCREENSHOTS = resolve(HERE, "../../../docs/console");
const CHROMIUM = process.env.PHAROS_CHROMIUM ?? "/usr/bin/chromium";

export interface ConsoleWorld {
  baseUrl: string;
  projectId: string;
  workspaceId: string;
  keys: { full: string; readOnly: string };
  scratch: ScratchStore;
  /** A call to the public API with the full key; throws on any status of 300 or more. */
  api<T = any>(method: string, path: string, body?: unknown): Promise<T>;
  /** A fresh tab (its own session storage) that records the console's CSP violations and page errors in `problems`. */
  newPage(): Promise<{ page: Page; problems: string[] }>;
  close(): Promise<void>;
}

/** Starts the server and the browser; pass `options.appOptions` for settings a screen needs (e.g. providers). */
export async function startConsoleWorld(
  options: { appOptions?: Omit<Partial<AppOptions>, "store" | "consoleDir"> } = {},
): Promise<ConsoleWorld> {
  if (!existsSync(join(CONSOLE_DIR, "index.html"))) {
    throw new Error("The console is not built: run `pnpm --filter @pharos/console build` (pnpm test does it first).");
  }
  const scratch = await openScratchStore();
  await scratch.store.migrate();
  const admin = adminContext(scratch.store);
  const workspace = await createWorkspace(admin, "Console tests");
  const projectId = (await createProjectForWorkspace(admin, workspace.id, "Support assistant")).id;
  const newKey = async (role: "full" | "read-only", name: string) =>
    (await createApiKey(admin, { workspaceId: workspace.id, name, role, projectIds: null })).key as string;
  const keys = { full: await newKey("full", "Console admin"), readOnly: await newKey("read-only", "QA reader") };
  const app = await createApp({ store: scratch.store, consoleDir: CONSOLE_DIR, ...options.appOptions });
  const server = await new Promise<ReturnType<typeof serve>>((ready) => {
    const started = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => ready(started));
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM });

  async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${baseUrl}/v2${path}`, {
      method,
      headers: { Authorization: `Bearer ${keys.full}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const payload = response.status === 204 ? undefined : ((await response.json()) as T);
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(payload)}`);
    return payload as T;
  }

  async function newPage() {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() !== "error" || !/Content Security Policy/i.test(message.text())) return;
      // Where the blocked action came from: a console script's URL, or none for a script the test itself ran
      // through the DevTools protocol (axe-core's checks), whose doings are not the console's.
      const { url, lineNumber } = message.location();
      if (url !== "") problems.push(`${message.text()} (${url}:${lineNumber})`);
    });
    return { page, problems };
  }

  async function close() {
    await browser.close();
    await new Promise<void>((done) => server.close(() => done()));
    await scratch.dispose();
  }

  return { baseUrl, projectId, workspaceId: workspace.id, keys, scratch, api, newPage, close };
}

/** Signs in through the sign-in screen and waits for the first screen (Traces). */
export async function signIn(world: ConsoleWorld, page: Page, key: string) {
  await page.goto(`${world.baseUrl}/`);
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Traces" }).waitFor();
}

/** axe-core on the current screen: no serious or critical violation. */
export async function expectAccessible(page: Page, screen: string) {
  // Injected through the DevTools protocol, which the page's CSP does not govern (the page never loads it).
  await page.evaluate(axe.source);
  // A page-side expression (this file is type-checked without the DOM's types, beside the server's sources).
  const violations = (await page.evaluate(`axe.run(document, { resultTypes: ["violations"] }).then((result) =>
    result.violations
      .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
      .map((violation) => violation.id + ": " + violation.nodes.map((node) => node.target.join(" ")).join(", ")))`)) as string[];
  expect(violations, screen).toEqual([]);
}

/** A screenshot for the README (docs/console/<name>.png). */
export const shot = (page: Page, name: string) => page.screenshot({ path: `${SCREENSHOTS}/${name}.png` });
