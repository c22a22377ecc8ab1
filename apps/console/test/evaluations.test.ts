/**
 * The Evaluations screens as a person uses them, in a real Chromium against a real server (harness.ts) with an
 * evaluation worker beside it and the fake LLM provider on loopback (the one edge we do not own): create an
 * evaluator, run it, watch the progress, read and filter the results, compare two runs.
 */
import { randomBytes } from "node:crypto";
import { createIdGenerator, createSecretBox, DEFAULT_EVALUATION_CONFIG, EvaluationWorker } from "@pharos/server";
import { type FakeProvider, startFakeProvider } from "@pharos/server/testing";
import pino from "pino";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleWorld, expectAccessible, shot, signIn, startConsoleWorld } from "./harness.ts";

let world: ConsoleWorld;
let fake: FakeProvider;
let worker: EvaluationWorker | undefined;
let promptId: string;
/** The page of the prompt's evaluations, as a link would open it. */
let evaluationsUrl: string;
/** The runs the scenarios start, in order: the baseline, then the candidate. */
const runs: string[] = [];

// The fake answers "Echo: <question>"; the evaluator passes when that equals the row's `expected`. The last row
// expects something else, so it fails in every run.
const ROWS = [
  { question: "What is 2+2?", expected: "Echo: What is 2+2?" },
  { question: "Name a colour", expected: "Echo: Name a colour" },
  { question: "Spell cat", expected: "Echo: Spell cat" },
  { question: "Say hello", expected: "Hello!" },
];

/** A prompt asking `{{question}}` of a provider record (named `providerName`) that calls the fake `provider`. */
async function promptOn(provider: FakeProvider, providerName: string, title: string) {
  const record = await world.api("POST", "/providers", {
    provider: "openai",
    displayName: providerName,
    baseUrl: `${provider.url}/v1`,
    credentials: { apiKey: "sk-fake" },
  });
  return world.api("POST", "/prompts", {
    projectId: world.projectId,
    title,
    draft: {
      config: { provider: "openai", providerId: record.id, model: "gpt-4o-mini" },
      messages: [{ role: "user", content: [{ modality: "text", value: "{{question}}" }] }],
    },
  });
}

beforeAll(async () => {
  fake = await startFakeProvider({ latencyMs: 150 });
  const secrets = createSecretBox(randomBytes(32));
  world = await startConsoleWorld({ appOptions: { secrets, wakeWorkers: () => worker?.wake() } });
  // The server's own worker, in this process, on the world's database (a started server embeds the same).
  worker = new EvaluationWorker({
    store: world.scratch.store,
    secrets,
    logger: pino({ level: "silent" }),
    now: Date.now,
    newId: createIdGenerator(Date.now),
    ...DEFAULT_EVALUATION_CONFIG,
    concurrency: 1,
    pollMs: 50,
  });
  worker.start();

  promptId = (await promptOn(fake, "Fake OpenAI", "Answer questions")).id;
  evaluationsUrl = `${world.baseUrl}/evaluations/${promptId}?project=${world.projectId}`;
  const dataset = await world.api("POST", "/datasets", {
    projectId: world.projectId,
    title: "Support questions",
    columns: [
      { name: "question", type: "static" },
      { name: "expected", type: "static" },
    ],
  });
  await world.api("POST", `/datasets/${dataset.id}/rows`, { rows: ROWS.map((values) => ({ values })) });
});

afterAll(async () => {
  await worker?.stop(0);
  await world?.close();
  await fake?.close();
});

/** Starts a run of the one evaluator from the screen and waits until it completed; returns its id. */
async function runToCompletion(page: Page) {
  await page.getByRole("checkbox", { name: "Matches expected" }).check();
  await page.getByRole("button", { name: "Start run" }).click();
  const detail = page.getByRole("region", { name: /^Run · / });
  await detail.waitFor();
  // The live progress bar is there from the start and reaches every row without a reload.
  await detail.getByRole("progressbar").waitFor();
  await expect.poll(() => detail.locator(".status").textContent(), { timeout: 30_000 }).toBe("completed");
  expect(await detail.locator(".run-progress").innerText()).toContain("4 / 4");
  expect(await detail.getByRole("progressbar").getAttribute("value")).toBe("100");
  const runId = new URL(page.url()).searchParams.get("run");
  expect(runId).toMatch(/^evalrun_/);
  return runId as string;
}

describe("evaluations in Chromium", () => {
  it("creates an evaluator, showing the API's validation message beside the field it names", async () => {
    const { page, problems } = await world.newPage();
    await signIn(world, page, world.keys.full);
    await page.getByRole("link", { name: "Evaluations", exact: true }).click();
    await page.getByRole("heading", { name: "Evaluations", exact: true }).waitFor();
    await page.getByRole("link", { name: "Answer questions" }).click();
    await page.getByRole("heading", { name: "Evaluations · Answer questions" }).waitFor();

    await page.getByRole("button", { name: "New evaluator" }).click();
    const form = page.getByRole("form", { name: "New evaluator" });
    await form.getByLabel("Title").fill("Matches expected");
    await expect.poll(() => form.getByLabel("Dataset").inputValue()).toMatch(/^dataset_/);
    await form.getByLabel("Type").selectOption("text-matcher");
    await form.getByLabel("Passes when the output").selectOption("regex");
    await form.getByLabel("Text", { exact: true }).fill("([");
    await form.getByRole("button", { name: "Create evaluator" }).click();
    // The server refuses the regular expression; its message sits under the field, which is marked invalid.
    await expect.poll(() => form.locator(".field-error").innerText()).toMatch(/not a valid regular expression/);
    expect(await form.getByLabel("Text", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    expect(await page.getByRole("alert").count()).toBe(1);
    await expectAccessible(page, "evaluator form with a validation error");

    await form.getByLabel("Passes when the output").selectOption("equals");
    await form.getByLabel("Text", { exact: true }).fill("{{expected}}");
    await form.getByLabel("Sample rate (0–1)").fill("0.5");
    await form.getByRole("button", { name: "Create evaluator" }).click();
    await expect.poll(() => page.locator(".notice").textContent()).toBe("Evaluator created.");
    const evaluators = page.getByRole("table", { name: "Evaluators" });
    await evaluators.getByRole("button", { name: "Matches expected" }).waitFor();
    // The evaluator is now in the URL, open for editing, with its live-span counts.
    expect(new URL(page.url()).searchParams.get("evaluator")).toMatch(/^evaluator_/);
    const editor = page.getByRole("form", { name: "Evaluator · Matches expected" });
    expect(await editor.getByLabel("Sample rate (0–1)").inputValue()).toBe("0.5");
    await expect.poll(() => page.locator(".online-stats dd").allTextContents()).toEqual(["0", "0", "0", "0", "–"]);
    const [saved] = (await world.api("GET", `/prompts/${promptId}/evaluators`)).evaluators;
    const { config, online } = await world.api("GET", `/prompts/${promptId}/evaluators/${saved.id}`);
    expect(config).toMatchObject({ type: "text-matcher", operator: "equals", value: "{{expected}}" });
    expect(online.sampleRate).toBe(0.5);

    // Editing saves the whole configuration again, its type included.
    await editor.getByLabel("Case-sensitive").uncheck();
    await editor.getByLabel("Sample rate (0–1)").fill("1");
    await editor.getByRole("button", { name: "Save evaluator" }).click();
    await expect.poll(() => page.locator(".notice").textContent()).toBe("Evaluator saved.");
    const edited = await world.api("GET", `/prompts/${promptId}/evaluators/${saved.id}`);
    expect([edited.config.caseSensitive, edited.online.sampleRate]).toEqual([false, 1]);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("runs an evaluation against the fake provider, watches it complete, reads and filters the results", async () => {
    const { page, problems } = await world.newPage();
    await signIn(world, page, world.keys.full);
    await page.goto(evaluationsUrl);
    runs.push(await runToCompletion(page));

    const results = page.getByRole("table", { name: "Results" });
    await expect.poll(() => results.getByRole("row").count()).toBe(5);
    // The row's values and the model's output side by side, with the grade and the reason.
    const first = results.getByRole("row").nth(1);
    expect(await first.innerText()).toMatch(
      /pass[\s\S]*1\.00[\s\S]*question\s*What is 2\+2\?[\s\S]*Echo: What is 2\+2\?/,
    );

    await page.getByLabel("Grade").selectOption("fail");
    await expect.poll(() => results.getByRole("row").count()).toBe(2);
    expect(await results.getByRole("row").nth(1).innerText()).toMatch(/fail[\s\S]*Say hello[\s\S]*Echo: Say hello/);
    expect(new URL(page.url()).searchParams.get("grade")).toBe("fail");
    await expectAccessible(page, "evaluation results");
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("compares a second run with the first and highlights the row that regressed", async () => {
    // The model now misspells one answer: that row passed before and fails now.
    fake.configure({
      reply: (request) => (request.lastUserText === "Spell cat" ? "Echo: dog" : `Echo: ${request.lastUserText}`),
    });
    const { page, problems } = await world.newPage();
    await signIn(world, page, world.keys.full);
    await page.goto(evaluationsUrl);
    const candidate = await runToCompletion(page);
    runs.push(candidate);

    await page.getByLabel("Compare with").selectOption(runs[0] as string);
    const totals = page.getByRole("table", { name: "Totals" });
    await expect
      .poll(() => totals.getByRole("row", { name: /Pass rate/ }).innerText())
      .toMatch(/75\.0 %\s+50\.0 %\s+−25\.0 pts/);
    const compared = page.getByRole("table", { name: "Compared rows" });
    await expect.poll(() => compared.getByRole("row").count()).toBe(5);
    const regressed = compared.locator("tr.change-regressed");
    expect(await regressed.count()).toBe(1);
    expect(await regressed.innerText()).toMatch(/regressed[\s\S]*Spell cat[\s\S]*pass[\s\S]*fail[\s\S]*Echo: dog/);
    expect(await page.locator(".change-counts").innerText()).toContain("1 regressed");

    await page.getByRole("checkbox", { name: "Regressions only" }).check();
    await expect.poll(() => compared.getByRole("row").count()).toBe(2);
    const url = new URL(page.url());
    expect([url.searchParams.get("run"), url.searchParams.get("baseline"), url.searchParams.get("change")]).toEqual([
      candidate,
      runs[0],
      "regressed",
    ]);
    await expectAccessible(page, "run comparison");
    await compared.scrollIntoViewIfNeeded();
    await shot(page, "evaluations");

    // The link alone shows the same comparison.
    await page.goto(url.toString());
    await expect.poll(() => page.getByRole("table", { name: "Compared rows" }).getByRole("row").count()).toBe(2);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("cancels a run while it runs", async () => {
    fake.configure({ latencyMs: 1500 });
    const { page, problems } = await world.newPage();
    await signIn(world, page, world.keys.full);
    await page.goto(evaluationsUrl);
    await page.getByRole("checkbox", { name: "Matches expected" }).check();
    await page.getByRole("button", { name: "Start run" }).click();
    const detail = page.getByRole("region", { name: /^Run · / });
    await detail.getByRole("button", { name: "Cancel run" }).click();
    // The row in flight finishes; no other starts.
    await expect.poll(() => detail.locator(".status").textContent(), { timeout: 20_000 }).toBe("cancelled");
    expect(await detail.getByRole("button", { name: "Cancel run" }).count()).toBe(0);
    const run = await world.api(
      "GET",
      `/prompts/${promptId}/evaluations/${new URL(page.url()).searchParams.get("run")}`,
    );
    expect(run.progress.completedRows + run.progress.failedRows).toBeLessThan(4);
    fake.configure({ latencyMs: 150 });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("reads results and a comparison beyond the first page of 200 (“Load more results”, “Load more rows”)", async () => {
    // A run of its own prompt, dataset and provider: a fake that answers at once, so 230 rows take moments.
    const quick = await startFakeProvider();
    try {
      const prompt = await promptOn(quick, "Quick fake", "Bulk answers");
      const dataset = await world.api("POST", "/datasets", {
        projectId: world.projectId,
        title: "Many questions",
        columns: [{ name: "question", type: "static" }],
      });
      const rows = Array.from({ length: 230 }, (_, index) => ({ values: { question: `Question ${index + 1}` } }));
      // The API takes 100 rows a request.
      for (let start = 0; start < rows.length; start += 100) {
        await world.api("POST", `/datasets/${dataset.id}/rows`, { rows: rows.slice(start, start + 100) });
      }
      const evaluator = await world.api("POST", `/prompts/${prompt.id}/evaluators`, {
        projectId: world.projectId,
        title: "Echoes",
        datasetId: dataset.id,
        config: { type: "text-matcher", operator: "starts-with", value: "Echo:" },
      });
      const { runId } = await world.api("POST", `/prompts/${prompt.id}/evaluations`, {
        evaluatorId: evaluator.id,
        datasetId: dataset.id,
      });
      await expect
        .poll(async () => (await world.api("GET", `/prompts/${prompt.id}/evaluations/${runId}`)).status, {
          timeout: 60_000,
        })
        .toBe("completed");

      const { page, problems } = await world.newPage();
      await signIn(world, page, world.keys.full);
      await page.goto(`${world.baseUrl}/evaluations/${prompt.id}?project=${world.projectId}&run=${runId}`);
      const results = page.getByRole("table", { name: "Results" });
      await expect.poll(() => results.getByRole("row").count()).toBe(201);
      expect(await page.getByText("200 results shown.").count()).toBe(1);
      expect(await results.getByRole("row").last().innerText()).toContain("Question 200");
      await expectAccessible(page, "evaluation results, first page");
      await page.getByRole("button", { name: "Load more results" }).click();
      await expect.poll(() => results.getByRole("row").count()).toBe(231);
      expect(await results.getByRole("row").nth(201).innerText()).toMatch(
        /pass[\s\S]*Question 201[\s\S]*Echo: Question 201/,
      );
      expect(await results.getByRole("row").last().innerText()).toContain("Question 230");
      expect(await page.getByRole("button", { name: "Load more results" }).count()).toBe(0);

      // A second run over the same rows against the first: 200 compared rows, then all 230, each with its values
      // (read from the dataset past its first page), none shown by its id alone.
      const second = await world.api("POST", `/prompts/${prompt.id}/evaluations`, {
        evaluatorId: evaluator.id,
        datasetId: dataset.id,
      });
      await expect
        .poll(async () => (await world.api("GET", `/prompts/${prompt.id}/evaluations/${second.runId}`)).status, {
          timeout: 60_000,
        })
        .toBe("completed");
      await page.goto(
        `${world.baseUrl}/evaluations/${prompt.id}?project=${world.projectId}&run=${second.runId}&baseline=${runId}`,
      );
      const compared = page.getByRole("table", { name: "Compared rows" });
      await expect.poll(() => compared.getByRole("row").count()).toBe(201);
      expect(await page.getByText("200 rows shown.").count()).toBe(1);
      await page.getByRole("button", { name: "Load more rows" }).click();
      await expect.poll(() => compared.getByRole("row").count()).toBe(231);
      expect(await page.getByRole("button", { name: "Load more rows" }).count()).toBe(0);
      await expect.poll(() => compared.locator("td > code").count()).toBe(0);
      const texts = await compared.getByRole("row").allInnerTexts();
      expect(texts.filter((text) => text.includes("unchanged"))).toHaveLength(230);
      expect(texts.some((text) => text.includes("Question 230"))).toBe(true);
      expect(problems).toEqual([]);
      await page.context().close();
    } finally {
      await quick.close();
    }
  });

  it("offers a read-only key the results and the comparison but no run or edit controls", async () => {
    const { page, problems } = await world.newPage();
    await signIn(world, page, world.keys.readOnly);
    await page.getByRole("link", { name: "Prompts", exact: true }).click();
    await page.getByRole("link", { name: "Answer questions" }).click();
    await page.getByRole("link", { name: "Evaluations of this prompt" }).click();
    await page.getByRole("heading", { name: "Evaluations · Answer questions" }).waitFor();
    await page.getByRole("table", { name: "Runs" }).getByRole("button").last().click();
    await page
      .getByRole("table", { name: "Results" })
      .getByRole("row", { name: /Spell cat/ })
      .waitFor();
    await page.getByRole("table", { name: "Evaluators" }).getByRole("button", { name: "Matches expected" }).click();
    const editor = page.getByRole("form", { name: "Evaluator · Matches expected" });
    await editor.waitFor();
    expect(await editor.getByLabel("Title").isDisabled()).toBe(true);
    for (const name of ["New evaluator", "Save evaluator", "Start run", "Cancel run"]) {
      expect(await page.getByRole("button", { name }).count(), name).toBe(0);
    }
    expect(await page.getByRole("heading", { name: "Start a run" }).count()).toBe(0);
    await expectAccessible(page, "evaluations, read-only");
    await page.goto(`${evaluationsUrl}&run=${runs[1]}&baseline=${runs[0]}`);
    await page.getByRole("table", { name: "Compared rows" }).locator("tr.change-regressed").waitFor();
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
