/**
 * Settings as a person uses them, in Chromium against a real server (harness.ts): project retention and masking,
 * API keys, environments, providers, webhooks and score configs, and what a read-only key is offered.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleWorld, expectAccessible, shot, signIn, startConsoleWorld } from "./harness.ts";

let world: ConsoleWorld;
/** A webhook receiver on loopback that answers 200 and keeps the headers of what it received. */
let receiver: Server;
const received: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  // Test events go to the receiver on loopback, which the server refuses unless told otherwise.
  world = await startConsoleWorld({ appOptions: { webhooks: { allowPrivateAddresses: true } } });
  receiver = createServer((request, response) => {
    received.push(request.headers);
    request.resume();
    request.on("end", () => response.writeHead(200).end("ok"));
  });
  await new Promise<void>((ready) => receiver.listen(0, "127.0.0.1", ready));
});

afterAll(async () => {
  await new Promise((done) => receiver?.close(done));
  await world?.close();
});

async function openSettings(page: Page, key: string, section?: string) {
  await signIn(world, page, key);
  await page.getByRole("link", { name: "Settings" }).click();
  await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
  // The first test adds a project, which may then be listed first: these tests work in the world's.
  await page.getByRole("combobox", { name: /^Project/ }).selectOption(world.projectId);
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

  it("adds and deletes environments (one holding a deployment is refused), and adds, replaces and deletes a provider's credential", async () => {
    const { page, problems } = await world.newPage();
    const prompt = await world.api("POST", "/prompts", { projectId: world.projectId, title: "Greeter" });
    const production = await world.api("POST", `/projects/${world.projectId}/deployment-environments`, {
      name: "production",
    });
    await world.api("POST", `/prompts/${prompt.id}/deployments`, { deploymentEnvironmentId: production.id });
    await openSettings(page, world.keys.full, "Environments");
    await page.getByLabel("Environment name").fill("staging");
    await page.getByRole("button", { name: "Add environment" }).click();
    const environments = page.getByRole("table", { name: "Environments" });
    await environments.getByRole("cell", { name: "staging", exact: true }).waitFor();
    await expectAccessible(page, "settings, environments");
    await page.getByRole("button", { name: "Delete staging" }).click();
    await environments.getByRole("cell", { name: "staging", exact: true }).waitFor({ state: "detached" });
    await page.getByRole("button", { name: "Delete production" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/"production" holds deployments/);
    expect(await environments.getByRole("cell", { name: "production", exact: true }).count()).toBe(1);
    const { deploymentEnvironments } = await world.api("GET", `/projects/${world.projectId}/deployment-environments`);
    expect(deploymentEnvironments.map((environment: { name: string }) => environment.name)).toEqual(["production"]);

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
    const confirmations: string[] = [];
    page.on("dialog", (dialog) => {
      confirmations.push(dialog.message());
      void dialog.accept();
    });
    await page.getByRole("button", { name: "Delete OpenAI team" }).click();
    await row.waitFor({ state: "detached" });
    expect((await world.api("GET", "/providers")).providers).toEqual([]);
    expect(confirmations).toEqual(["Delete the provider “OpenAI team”? Prompts and evaluators that use it will fail."]);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("creates a webhook, edits its headers, sends a test event and reads its delivery, rotates its secret, deletes it; adds and deletes a score config", async () => {
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

    const firstSecret = await page.getByRole("status").locator("output").textContent();
    await page.getByRole("button", { name: "Done" }).click();

    await page.getByRole("button", { name: "Edit Cache refresh" }).click();
    const edit = page.getByRole("form", { name: "Edit webhook Cache refresh" });
    await edit.getByLabel("Webhook name").fill("Cache refresher");
    await edit.getByLabel("Endpoint URL").fill(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
    await edit.getByLabel("evaluation-run-finished").uncheck();
    const headers = edit.getByLabel("Headers");
    await headers.fill("X-Receiver-Token cache-7");
    await expect.poll(() => edit.getByRole("alert").textContent()).toBe("Line 1 is not “Name: value”.");
    expect(await edit.getByRole("button", { name: "Save webhook" }).isDisabled()).toBe(true);
    await headers.fill("Host: elsewhere.example.com");
    await edit.getByRole("button", { name: "Save webhook" }).click();
    await expect.poll(() => edit.getByRole("alert").textContent()).toMatch(/host/i);
    await headers.fill("X-Receiver-Token: cache-7");
    await edit.getByRole("button", { name: "Save webhook" }).click();
    const row = table.getByRole("row", { name: /Cache refresher/ });
    await expect.poll(() => row.innerText()).toMatch(/127\.0\.0\.1:\d+\/hook\s+create-deployment\s+X-Receiver-Token/);
    const listed = await world.api("GET", `/projects/${world.projectId}/webhooks`);
    const [stored] = listed.webhooks;
    expect(stored?.headers, JSON.stringify(listed)).toEqual({ "X-Receiver-Token": "cache-7" });

    await page.getByRole("button", { name: "Deliveries Cache refresher" }).click();
    const deliveries = page.getByRole("region", { name: "Deliveries of “Cache refresher”" });
    await deliveries.getByText("No deliveries yet").waitFor();
    await deliveries.getByRole("button", { name: "Send test event" }).click();
    const delivery = deliveries.getByRole("table", { name: "Deliveries" }).getByRole("row", { name: /^test/ });
    await expect.poll(() => delivery.innerText()).toMatch(/^test\s+succeeded\s+1\s+HTTP 200/);
    expect(received.at(-1)?.["x-receiver-token"]).toBe("cache-7");
    await expectAccessible(page, "settings, webhook deliveries");

    await page.getByRole("button", { name: "Rotate secret Cache refresher" }).click();
    const notice = page.getByRole("status").filter({ hasText: "has a new signing secret" });
    await expect
      .poll(() => notice.textContent())
      .toMatch(/Copy it now[\s\S]*previous secret keeps signing beside it until/);
    const rotated = await notice.getByRole("status", { name: "Signing secret" }).textContent();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(firstSecret);
    await page.getByRole("button", { name: "Done" }).click();
    expect(await page.getByText(rotated as string).count()).toBe(0);

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
