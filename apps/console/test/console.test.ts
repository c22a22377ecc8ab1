/**
 * Sign-in, traces and prompts as a person uses them, in a real Chromium against a real server (harness.ts).
 * Each scenario checks what is on the screen, and axe-core checks each screen.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleWorld, expectAccessible, shot, signIn as signInWith, startConsoleWorld } from "./harness.ts";

let world: ConsoleWorld;
let baseUrl: string;
let projectId: string;
const keys = { full: "", readOnly: "" };
const api = (method: string, path: string, body?: unknown) => world.api(method, path, body);
const newPage = () => world.newPage();
const signIn = (page: Parameters<typeof signInWith>[1], key: string) => signInWith(world, page, key);

const T0 = Date.UTC(2026, 10, 25, 9, 0, 0);
const text = (value: string) => [{ modality: "text", value }];

async function writeTrace(name: string, options: { status?: string; sessionId?: string; tags?: string[]; at: number }) {
  return api("POST", "/logs/trace", {
    projectId,
    trace: {
      name,
      referenceId: `request-${name}`,
      status: options.status ?? "success",
      startedAt: options.at,
      endedAt: options.at + 2000,
      ...(options.sessionId && { sessionId: options.sessionId }),
      tags: options.tags ?? [],
    },
    spans: [
      {
        name: "llm-call",
        status: "success",
        startedAt: options.at + 100,
        endedAt: options.at + 1300,
        referenceId: "llm",
        content: {
          type: "Model",
          provider: "openai",
          model: "gpt-4o-mini",
          input: JSON.stringify({
            messages: [
              { role: "system", content: text("You answer questions about orders.") },
              { role: "user", content: text(`Where is my order for ${name}?`) },
            ],
          }),
          output: JSON.stringify({
            messages: [{ role: "assistant", content: text("It ships tomorrow.") }],
            tokenUsage: { promptTokens: 12, completionTokens: 5, totalTokens: 17 },
          }),
          cost: 0.000021,
        },
      },
      {
        name: "lookup_order",
        status: "success",
        startedAt: options.at + 1400,
        endedAt: options.at + 1450,
        referenceId: "tool",
        parentReferenceId: "llm",
        content: { type: "Tool", input: '{"orderId":"8812"}', output: '{"status":"shipped"}' },
      },
    ],
  });
}

beforeAll(async () => {
  world = await startConsoleWorld();
  ({ baseUrl, projectId } = world);
  Object.assign(keys, world.keys);

  await writeTrace("checkout-question", { at: T0, sessionId: "session-7", tags: ["production"] });
  await writeTrace("refund-question", { at: T0 + 60_000, status: "failure", tags: ["beta"] });
  await writeTrace("shipping-question", { at: T0 + 120_000, sessionId: "session-7", tags: ["production"] });
});

afterAll(async () => {
  await world?.close();
});

describe("the console in Chromium", () => {
  it("refuses a wrong key with a visible message and keeps no key", async () => {
    const { page, problems } = await newPage();
    await page.goto(`${baseUrl}/prompts`);
    await page.getByRole("heading", { name: "Pharos" }).waitFor();
    expect(page.url()).toBe(`${baseUrl}/sign-in`);
    await expectAccessible(page, "sign-in");
    await shot(page, "sign-in");
    await page.getByLabel("API key").fill("phk_01JD8Q2A1B2C3D4E5F6G7H8J9K_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("This API key was refused");
    expect(await page.evaluate("sessionStorage.length")).toBe(0);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("signs in, lists the traces written through the API, filters them in the URL, signs out", async () => {
    const { page, problems } = await newPage();
    await signIn(page, keys.full);
    const list = page.getByRole("region", { name: "Trace list" });
    await list.getByRole("link", { name: "checkout-question" }).waitFor();
    expect(await list.getByRole("row").count()).toBe(4);
    await expect.poll(() => page.locator(".role").textContent()).toBe("Console admin · full");
    await expectAccessible(page, "traces");
    await shot(page, "traces");

    await page.getByLabel("Session").fill("session-7");
    await page.getByRole("button", { name: "Apply" }).click();
    await expect.poll(() => list.getByRole("row").count()).toBe(3);
    expect(new URL(page.url()).searchParams.get("session")).toBe("session-7");
    await page.getByLabel("Status").selectOption("failure");
    await page.getByLabel("Session").fill("");
    await page.getByRole("button", { name: "Apply" }).click();
    await expect.poll(() => list.getByRole("row").count()).toBe(2);
    await list.getByRole("link", { name: "refund-question" }).waitFor();

    // The URL alone reproduces the view (a shared link).
    await page.goto(`${baseUrl}/?project=${projectId}&tag=production`);
    await list.getByRole("link", { name: "shipping-question" }).waitFor();
    expect(await list.getByRole("link", { name: "refund-question" }).count()).toBe(0);

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("API key").waitFor();
    expect(await page.evaluate("sessionStorage.length")).toBe(0);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("opens a trace and reads its Model span's messages, then another span's JSON and the raw view", async () => {
    const { page, problems } = await newPage();
    await signIn(page, keys.full);
    await page.getByRole("link", { name: "checkout-question" }).click();
    await page.getByRole("heading", { name: "checkout-question" }).waitFor();
    const tree = page.getByRole("navigation", { name: "Span tree" });
    expect(await tree.getByRole("link").allTextContents()).toEqual([
      expect.stringContaining("llm-call"),
      expect.stringContaining("lookup_order"),
    ]);
    const input = page.getByRole("list", { name: "Input messages" });
    await input.waitFor();
    expect(await input.getByRole("listitem").allInnerTexts()).toEqual([
      expect.stringMatching(/System[\s\S]*You answer questions about orders\./),
      expect.stringMatching(/User[\s\S]*Where is my order for checkout-question\?/),
    ]);
    expect(await page.getByRole("list", { name: "Output messages" }).innerText()).toContain("It ships tomorrow.");
    expect(await page.locator(".facts").first().innerText()).toMatch(/12 in · 5 out/);
    await expectAccessible(page, "trace detail");
    await shot(page, "trace");

    await tree.getByRole("link", { name: /lookup_order/ }).click();
    await page.getByRole("heading", { name: /lookup_order/ }).waitFor();
    expect(await page.locator(".span-panel").innerText()).toContain("shipped");
    await page.getByRole("link", { name: "Raw" }).click();
    await page.getByRole("heading", { name: "Raw content" }).waitFor();
    expect(await page.locator("pre.raw").innerText()).toContain('"type": "Tool"');
    expect(new URL(page.url()).searchParams.get("view")).toBe("raw");
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("edits a prompt's draft, deploys it, compares two deployments and rolls back", async () => {
    const { page, problems } = await newPage();
    await signIn(page, keys.full);
    await page.getByRole("link", { name: "Prompts", exact: true }).click();
    await page.getByRole("heading", { name: "Prompts" }).waitFor();
    await page.getByLabel("Title").fill("Order status answer");
    await page.getByRole("button", { name: "New prompt" }).click();
    await page.getByRole("heading", { name: "Order status answer" }).waitFor();

    await page.getByLabel("Provider").selectOption("openai");
    await page.getByLabel("Model", { exact: true }).fill("gpt-4o-mini");
    await page.getByRole("button", { name: "Add message" }).click();
    await page.getByLabel("Message 1 text").fill("Where is order {{order_id}}?");
    await expect.poll(() => page.locator("mark.variable").allTextContents()).toEqual(["{{order_id}}"]);
    await page.getByRole("button", { name: "Save draft" }).click();
    await expect.poll(() => page.locator(".notice").textContent()).toBe("Draft saved.");

    await page.getByLabel("New environment").fill("production");
    await page.getByRole("button", { name: "Create environment" }).click();
    await expect
      .poll(() => page.getByLabel("Environment", { exact: true }).locator("option").allTextContents())
      .toEqual(["production"]);
    await page.getByRole("button", { name: "Deploy draft" }).click();
    await expect.poll(() => page.locator(".notice").textContent()).toBe("Deployed the draft to production.");

    await page.getByLabel("Message 1 text").fill("Where is order {{order_id}} now?");
    await page.getByRole("button", { name: "Save draft" }).click();
    await expect.poll(() => page.locator(".notice").textContent()).toBe("Draft saved.");
    // Draft against the deployed version: the changed line, removed then added.
    await expect
      .poll(() => page.locator(".diff .removed").allTextContents())
      .toEqual(["- Where is order {{order_id}}?"]);
    expect(await page.locator(".diff .added").allTextContents()).toEqual(["+ Where is order {{order_id}} now?"]);
    await page.getByRole("button", { name: "Deploy draft" }).click();
    const history = page.getByRole("table", { name: "Deployment history" });
    await expect.poll(() => history.getByRole("row").count()).toBe(3);
    await expectAccessible(page, "prompt editor");
    await shot(page, "prompt");

    await history.getByRole("button", { name: /Roll back to/ }).click();
    await expect.poll(() => page.locator(".notice").textContent()).toMatch(/^Rolled production back/);
    await expect.poll(() => history.getByRole("row").count()).toBe(4);
    // The draft is left as it was: only the deployment goes back.
    expect(await page.getByLabel("Message 1 text").innerText()).toBe("Where is order {{order_id}} now?");
    // What applications now read from production is the earlier version.
    const promptId = new URL(page.url()).pathname.split("/").at(-1);
    const { deployments } = await api("GET", `/prompts/${promptId}/deployments`);
    expect(deployments[0].prompt.messages[0].content[0].value).toBe("Where is order {{order_id}}?");
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("offers a read-only key no edit controls", async () => {
    const { page, problems } = await newPage();
    await signIn(page, keys.readOnly);
    await expect.poll(() => page.locator(".role").textContent()).toBe("QA reader · read-only");
    await page.getByRole("link", { name: "Prompts", exact: true }).click();
    await page.getByRole("link", { name: "Order status answer" }).click();
    await page.getByRole("heading", { name: "Order status answer" }).waitFor();
    await page.getByLabel("Message 1 text").waitFor();
    for (const name of ["Save draft", "Add message", "Deploy draft", "Create environment", "New prompt"]) {
      expect(await page.getByRole("button", { name }).count(), name).toBe(0);
    }
    expect(await page.getByRole("button", { name: /Roll back|Remove message/ }).count()).toBe(0);
    expect(await page.getByLabel("Message 1 text").getAttribute("aria-readonly")).toBe("true");
    await expectAccessible(page, "prompt, read-only");
    await page.getByRole("link", { name: "Prompts", exact: true }).click();
    await page.getByRole("heading", { name: "Prompts" }).waitFor();
    expect(await page.getByRole("button", { name: "New prompt" }).count()).toBe(0);
    await expectAccessible(page, "prompts");
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
