/**
 * Settings as a person uses them, in Chromium against a real server (harness.ts): project retention and masking,
 * API keys, environments, providers, webhooks and score configs, and what a read-only key is offered.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleWorld, expectAccessible, shot, signIn, startConsoleWorld } from "./harness.ts";

let world: ConsoleWorld;

beforeAll(async () => {
  world = await startConsoleWorld();
});

afterAll(async () => {
  await world?.close();
});

async function openSettings(page: Page, key: string, section?: string) {
  await signIn(world, page, key);
  await page.getByRole("link", { name: "Settings" }).click();
  await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
  if (section)
    await page.getByRole("navigation", { name: "Settings sections" }).getByRole("link", { name: section }).click();
}

/** A request with some key, for what the console's actions changed. */
const withKey = (key: string, path: string) =>
  fetch(`${world.baseUrl}/v2${path}`, { headers: { Authorization: `Bearer ${key}` } });

describe("settings in Chromium", () => {
  it("refuses a retention below a day with the API's message, saves one, adds a masking rule, creates and renames a project", async () => {
    const { page, problems } = await world.newPage();
    await openSettings(page, world.keys.full);
    const retention = page.getByLabel("Retention (days");
    await retention.fill("0");
    await page.getByRole("button", { name: "Save retention" }).click();
    await expect.poll(() => page.locator("#retention-error").textContent()).toMatch(/Too small|>=\s*1|at least 1/i);
    expect((await world.api("GET", `/projects/${world.projectId}`)).retentionDays).toBeNull();

    await retention.fill("30");
    await page.getByRole("button", { name: "Save retention" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Retention saved.");
    expect(await page.locator("#retention-error").count()).toBe(0);
    expect((await world.api("GET", `/projects/${world.projectId}`)).retentionDays).toBe(30);

    await page.getByLabel("Detector").selectOption("regex");
    await page.getByLabel("Pattern").fill("order-(");
    await page.getByRole("button", { name: "Add rule" }).click();
    await expect.poll(() => page.locator("#masking-error").textContent()).toMatch(/maskingRules\.0\.pattern/);
    await page.getByLabel("Pattern").fill("order-[0-9]{6}");
    await page.getByLabel("Placeholder").fill("[ORDER]");
    await page.getByRole("button", { name: "Add rule" }).click();
    const rules = page.getByRole("list", { name: "Masking rules" });
    await expect.poll(() => rules.innerText()).toContain("regex order-[0-9]{6} → [ORDER]");
    expect((await world.api("GET", `/projects/${world.projectId}`)).maskingRules).toEqual([
      { detector: "regex", pattern: "order-[0-9]{6}", placeholder: "[ORDER]" },
    ]);
    expect(new URL(page.url()).searchParams.get("section")).toBeNull();
    await expectAccessible(page, "settings, projects");
    await shot(page, "settings");

    await page.getByLabel("New project title").fill("Billing bot");
    await page.getByRole("button", { name: "Create project" }).click();
    const projects = page.getByRole("table", { name: "Projects" });
    await projects.getByRole("link", { name: "Billing bot" }).click();
    await page.getByRole("heading", { name: "Project “Billing bot”" }).waitFor();
    await page.getByLabel("Title", { exact: true }).fill("Billing assistant");
    await page.getByRole("button", { name: "Rename" }).click();
    await projects.getByRole("link", { name: "Billing assistant" }).waitFor();
    const { projects: stored } = await world.api("GET", "/projects");
    expect(stored.map((project: { title: string }) => project.title).sort()).toEqual([
      "Billing assistant",
      "Support assistant",
    ]);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("creates an API key, shows the full key once, and revokes it", async () => {
    const { page, problems } = await world.newPage();
    await openSettings(page, world.keys.full, "API keys");
    expect(new URL(page.url()).searchParams.get("section")).toBe("api-keys");
    await page.getByLabel("Key name").fill("CI reader");
    await page.getByLabel("Role").selectOption("read-only");
    await page.getByRole("button", { name: "Create key" }).click();
    const secret = page.getByRole("status").locator("output");
    await secret.waitFor();
    const key = (await secret.textContent()) as string;
    expect(key).toMatch(/^phk_/);
    expect((await withKey(key, "/api-keys/current")).status).toBe(200);
    await expectAccessible(page, "settings, API keys");
    await page.getByRole("button", { name: "Done" }).click();
    expect(await page.getByText(key).count()).toBe(0);

    const keys = page.getByRole("table", { name: "API keys" });
    const row = keys.getByRole("row", { name: /CI reader/ });
    expect(await row.innerText()).toMatch(/read-only[\s\S]*all[\s\S]*active/);
    await page.getByRole("button", { name: "Revoke CI reader" }).click();
    await expect.poll(() => row.innerText()).toMatch(/revoked/);
    expect((await withKey(key, "/api-keys/current")).status).toBe(401);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("adds an environment and a provider whose credential is never shown again, then replaces it", async () => {
    const { page, problems } = await world.newPage();
    await openSettings(page, world.keys.full, "Environments");
    await page.getByLabel("Environment name").fill("staging");
    await page.getByRole("button", { name: "Add environment" }).click();
    await page.getByRole("table", { name: "Environments" }).getByRole("cell", { name: "staging" }).waitFor();
    await expectAccessible(page, "settings, environments");

    await page.getByRole("link", { name: "Providers" }).click();
    const form = page.getByRole("form", { name: "New provider" });
    await form.getByLabel("Display name").fill("OpenAI team");
    await form.getByLabel("API key").fill("sk-secret-never-shown");
    await form.getByRole("button", { name: "Add provider" }).click();
    const row = page.getByRole("table", { name: "Providers" }).getByRole("row", { name: /OpenAI team/ });
    await expect.poll(() => row.innerText()).toMatch(/openai[\s\S]*vendor default[\s\S]*stored \(write-only\)/);
    await expectAccessible(page, "settings, providers");

    await page.getByRole("button", { name: "Edit OpenAI team" }).click();
    const edit = page.getByRole("form", { name: "Edit provider OpenAI team" });
    expect(await edit.getByLabel("Replace API key").inputValue()).toBe("");
    expect(await page.content()).not.toContain("sk-secret-never-shown");
    await edit.getByLabel("Replace API key").fill("sk-rotated");
    await edit.getByRole("button", { name: "Save provider" }).click();
    await edit.waitFor({ state: "detached" });
    expect(await row.innerText()).toContain("stored (write-only)");
    const { providers } = await world.api("GET", "/providers");
    expect(JSON.stringify(providers)).not.toMatch(/sk-/);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("creates, edits and deletes a webhook, and adds and deletes a score config", async () => {
    const { page, problems } = await world.newPage();
    await openSettings(page, world.keys.full, "Webhooks");
    const create = page.getByRole("form", { name: "New webhook" });
    await create.getByLabel("Webhook name").fill("Cache refresh");
    await create.getByLabel("Endpoint URL").fill("https://hooks.example.com/pharos");
    await create.getByRole("button", { name: "Add webhook" }).click();
    await expect.poll(() => page.getByRole("status").locator("output").textContent()).toMatch(/^whsec_/);
    const table = page.getByRole("table", { name: "Webhooks" });
    await expect
      .poll(() => table.getByRole("row", { name: /Cache refresh/ }).innerText())
      .toContain("create-deployment, evaluation-run-finished");
    await expectAccessible(page, "settings, webhooks");

    await page.getByRole("button", { name: "Edit Cache refresh" }).click();
    const edit = page.getByRole("form", { name: "Edit webhook Cache refresh" });
    await edit.getByLabel("Webhook name").fill("Cache refresher");
    await edit.getByLabel("evaluation-run-finished").uncheck();
    await edit.getByRole("button", { name: "Save webhook" }).click();
    const row = table.getByRole("row", { name: /Cache refresher/ });
    await expect.poll(() => row.innerText()).toMatch(/hooks\.example\.com\/pharos\s+create-deployment\s/);
    await page.getByRole("button", { name: "Delete Cache refresher" }).click();
    await row.waitFor({ state: "detached" });
    expect((await world.api("GET", `/projects/${world.projectId}/webhooks`)).webhooks).toEqual([]);

    await page.getByRole("link", { name: "Score configs" }).click();
    await page.getByLabel("Score name").fill("helpfulness");
    await page.getByLabel("Minimum").fill("0");
    await page.getByLabel("Maximum").fill("1");
    await page.getByRole("button", { name: "Add score config" }).click();
    const configs = page.getByRole("table", { name: "Score configs" });
    await expect.poll(() => configs.getByRole("row", { name: /helpfulness/ }).innerText()).toMatch(/numeric\s+0 – 1/);
    await expectAccessible(page, "settings, score configs");
    await page.getByRole("button", { name: "Delete helpfulness" }).click();
    await configs.getByRole("row", { name: /helpfulness/ }).waitFor({ state: "detached" });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("shows a read-only key the settings without edit controls, and says which the API refuses", async () => {
    const { page, problems } = await world.newPage();
    await openSettings(page, world.keys.readOnly);
    await page.getByRole("list", { name: "Masking rules" }).waitFor();
    expect(await page.getByLabel("Retention (days").getAttribute("readonly")).not.toBeNull();
    expect(await page.getByRole("button").allTextContents()).toEqual(["Sign out"]);
    await expectAccessible(page, "settings, read-only");

    const sections = page.getByRole("navigation", { name: "Settings sections" });
    await sections.getByRole("link", { name: "API keys" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/Only an admin key/);
    await sections.getByRole("link", { name: "Webhooks" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/may not read webhooks/);
    await sections.getByRole("link", { name: "Providers" }).click();
    await page.getByRole("table", { name: "Providers" }).waitFor();
    expect(await page.getByRole("button").allTextContents()).toEqual(["Sign out"]);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
