/**
 * The prompt playground and code editors in Chromium (harness.ts): a run against the fake provider shows the
 * answer with its tokens, cost and latency and is found among the traces; the tools editor shows JSON and
 * schema errors and holds back the save. The edit/deploy/diff/rollback scenario lives in console.test.ts.
 */
import { type FakeProvider, startFakeProvider } from "@pharos/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleWorld, expectAccessible, shot, signIn, startConsoleWorld } from "./harness.ts";

let world: ConsoleWorld;
let fake: FakeProvider;
let promptId: string;

beforeAll(async () => {
  fake = await startFakeProvider();
  world = await startConsoleWorld();
  const provider = await world.api("POST", "/providers", {
    provider: "openai",
    displayName: "Fake OpenAI",
    baseUrl: `${fake.url}/v1`,
    credentials: { apiKey: "sk-test" },
  });
  const prompt = await world.api("POST", "/prompts", {
    projectId: world.projectId,
    title: "Order helper",
    draft: {
      config: { provider: "openai", providerId: provider.id, model: "gpt-4o-mini", settings: {} },
      messages: [
        { role: "system", content: [{ modality: "text", value: "You help customers of {{company}}." }] },
        { role: "user", content: [{ modality: "text", value: "{{question}}" }] },
      ],
    },
  });
  promptId = prompt.id;
});

afterAll(async () => {
  await world?.close();
  await fake?.close();
});

describe("prompts in Chromium", () => {
  it("runs the saved draft in the playground, shows the answer, tokens, cost and latency, and finds its trace", async () => {
    const { page, problems } = await world.newPage();
    await signIn(world, page, world.keys.full);
    await page.goto(`${world.baseUrl}/prompts/${promptId}?project=${world.projectId}`);
    await page.getByRole("heading", { name: "Order helper" }).waitFor();
    // The variables are highlighted in the code editor.
    await expect
      .poll(() => page.locator(".code-editor mark.variable").allTextContents())
      .toEqual(["{{company}}", "{{question}}"]);

    const playground = page.getByRole("region", { name: "Playground" });
    await playground.getByLabel("company").fill("Acme");
    await playground.getByLabel("question").fill("Where is order 8812?");
    await playground.getByRole("button", { name: "Run" }).click();
    const answer = playground.getByLabel("Answer");
    await expect.poll(() => answer.locator(".answer").innerText()).toBe("Echo: Where is order 8812?");
    const facts = await answer.locator(".facts").innerText();
    expect(facts).toMatch(/Tokens\s+\d+ in · 5 out/);
    expect(facts).toMatch(/Cost\s+\$0\.0000\d\d/);
    expect(facts).toMatch(/Latency\s+\d+ ms/);
    await expectAccessible(page, "playground");
    await shot(page, "playground");

    await answer.getByRole("link", { name: "Open the trace" }).click();
    await page.getByRole("heading", { name: "playground" }).first().waitFor();
    expect(await page.getByRole("list", { name: "Output messages" }).innerText()).toContain(
      "Echo: Where is order 8812?",
    );
    await page.goto(`${world.baseUrl}/?project=${world.projectId}`);
    await page.getByRole("region", { name: "Trace list" }).getByRole("link", { name: "playground" }).waitFor();
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("shows the error of a run the provider fails", async () => {
    const { page, problems } = await world.newPage();
    await signIn(world, page, world.keys.full);
    await page.goto(`${world.baseUrl}/prompts/${promptId}?project=${world.projectId}`);
    const playground = page.getByRole("region", { name: "Playground" });
    await playground.getByLabel("company").fill("Acme");
    await playground.getByLabel("question").fill("Anyone there?");
    fake.configure({ fail: () => ({ status: 503 }) });
    await playground.getByRole("button", { name: "Run" }).click();
    await expect
      .poll(() => playground.getByRole("alert").textContent())
      .toMatch(/^The provider failed: openai returned 503/);
    fake.configure({ fail: () => undefined });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("shows invalid tools JSON and schema errors and saves only valid tools", async () => {
    const { page, problems } = await world.newPage();
    await signIn(world, page, world.keys.full);
    await page.goto(`${world.baseUrl}/prompts/${promptId}?project=${world.projectId}`);
    const tools = page.getByLabel("Tools (JSON)");
    const toolProblems = page.getByRole("list", { name: "Tools problems" });

    await tools.fill('[{"type": "function",');
    await expect.poll(() => toolProblems.innerText()).toMatch(/^Not JSON/);
    expect(await page.getByRole("button", { name: "Save draft" }).isDisabled()).toBe(true);

    await tools.fill('[{"type": "function", "definition": {"schema": {"name": "lookup"}}}]');
    await expect.poll(() => toolProblems.innerText()).toMatch(/tools\[0\]\.definition\.schema: .*description/);
    await expectAccessible(page, "tools errors");

    await tools.fill(
      '[{"type": "function", "definition": {"schema": {"name": "lookup", "description": "Find an order."}}}]',
    );
    await expect.poll(() => toolProblems.count()).toBe(0);
    await page.getByRole("button", { name: "Save draft" }).click();
    await expect.poll(() => page.locator(".notice").textContent()).toBe("Draft saved.");
    const draft = await world.api("GET", `/prompts/${promptId}/draft`);
    expect(draft.tools[0].definition.schema.name).toBe("lookup");
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
