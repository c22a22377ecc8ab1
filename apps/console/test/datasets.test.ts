/**
 * Datasets as a person uses them, in a real Chromium against a real server (harness.ts): the table editor, CSV
 * import, a computed prompt column computed by a worker against the fake LLM provider, "Add to dataset" from a
 * span of the trace view, and a read-only key that is offered no edit control.
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
let traceId: string;
let datasetUrl = "";
const api = (method: string, path: string, body?: unknown) => world.api(method, path, body);
const text = (value: string) => [{ modality: "text", value }];

beforeAll(async () => {
  // The fake provider fails any call about "boom", so one computed cell fails with a reason.
  fake = await startFakeProvider({
    fail: (request) => (request.lastUserText.includes("boom") ? { status: 400 } : undefined),
  });
  // Computed cells are computed by a worker on the server's database, with the secrets that seal the provider key.
  const secrets = createSecretBox(randomBytes(32));
  world = await startConsoleWorld({ appOptions: { secrets, wakeWorkers: () => worker?.wake() } });
  worker = new EvaluationWorker({
    store: world.scratch.store,
    secrets,
    logger: pino({ level: "silent" }),
    now: Date.now,
    newId: createIdGenerator(Date.now),
    ...DEFAULT_EVALUATION_CONFIG,
    pollMs: 50,
  });
  worker.start();

  const provider = await api("POST", "/providers", {
    provider: "openai",
    displayName: "Fake vendor",
    baseUrl: `${fake.url}/v1`,
    credentials: { apiKey: "sk-fake" },
  });
  await api("POST", "/prompts", {
    projectId: world.projectId,
    title: "Draft answer",
    draft: {
      config: { provider: "openai", providerId: provider.id, model: "gpt-4o-mini" },
      messages: [{ role: "user", content: text("{{question}}") }],
    },
  });
  const at = Date.UTC(2026, 10, 25, 9, 0, 0);
  const trace = await api("POST", "/logs/trace", {
    projectId: world.projectId,
    trace: { name: "order-question", referenceId: "request-1", status: "success", startedAt: at, endedAt: at + 1000 },
    spans: [
      {
        name: "answer-call",
        status: "success",
        startedAt: at + 100,
        endedAt: at + 900,
        content: {
          type: "Model",
          provider: "openai",
          model: "gpt-4o-mini",
          input: JSON.stringify({ messages: [{ role: "user", content: text("Where is order 8812?") }] }),
          output: JSON.stringify({ messages: [{ role: "assistant", content: text("It ships tomorrow.") }] }),
          variables: {
            question: { modality: "text", value: "Where is order 8812?" },
            customer: { modality: "text", value: "ACME" },
          },
        },
      },
    ],
  });
  traceId = trace.traceId;
});

afterAll(async () => {
  await worker?.stop(0);
  await world?.close();
  await fake?.close();
});

const rowsTable = (page: Page) => page.getByRole("table", { name: "Dataset rows" });
/** The table's body as text, one array of cell texts per row (the row number and actions left out). */
const tableCells = (page: Page) =>
  rowsTable(page)
    .locator("tbody tr")
    .evaluateAll((rows) =>
      rows.map((row) =>
        Array.from(row.querySelectorAll("td"), (cell) => (cell as { innerText: string }).innerText.trim()),
      ),
    );

describe("datasets in Chromium", () => {
  it("creates a dataset, adds, edits and deletes rows and columns, and imports CSV", async () => {
    const { page, problems } = await world.newPage();
    page.on("dialog", (dialog) => void dialog.accept());
    await signIn(world, page, world.keys.full);
    await page.getByRole("link", { name: "Datasets", exact: true }).click();
    await page.getByRole("heading", { name: "Datasets" }).waitFor();
    await page.getByLabel("Title").fill("Support questions");
    await page.getByRole("button", { name: "New dataset" }).click();
    await page.getByRole("heading", { name: "Support questions" }).waitFor();
    datasetUrl = page.url();
    expect(new URL(datasetUrl).pathname).toMatch(/^\/datasets\/dataset_/);

    for (const name of ["question", "expected", "scratch"]) {
      await page.getByLabel("Column name").fill(name);
      await page.getByRole("button", { name: "Add column" }).click();
      await page.getByLabel(`Name of column ${name}`).waitFor();
    }
    await page.getByRole("button", { name: "Delete column scratch" }).click();
    await expect.poll(() => page.getByLabel("Name of column scratch").count()).toBe(0);

    const newRow = page.getByRole("group", { name: "New row" });
    await newRow.getByLabel("question").fill("Where is my order?");
    await newRow.getByLabel("expected").fill("Tomorrow");
    await page.getByRole("button", { name: "Add row" }).click();
    await expect.poll(() => tableCells(page)).toEqual([["1", "Where is my order?", "Tomorrow", "Edit\nDelete"]]);

    await page.getByRole("button", { name: "Edit row 1" }).click();
    await page.getByLabel("expected, row 1").fill("Today");
    await page.getByRole("button", { name: "Save row 1" }).click();
    await expect.poll(() => tableCells(page)).toEqual([["1", "Where is my order?", "Today", "Edit\nDelete"]]);

    await page.getByLabel("Name of column expected").fill("reference");
    await page.getByRole("button", { name: "Rename column expected" }).click();
    await expect
      .poll(() => rowsTable(page).locator("thead th").allInnerTexts())
      .toEqual(["#", "question", "reference", "Actions"]);

    await page.getByLabel("CSV text").fill('question,reference,tier\n"Refund, please?",No,gold\nboom,,silver\n');
    await expect
      .poll(() => page.locator(".csv-preview").innerText())
      .toContain("2 rows; columns: question, reference.");
    await page.getByRole("button", { name: "Import rows" }).click();
    await expect.poll(() => page.getByRole("status").allInnerTexts()).toContain("Imported 2 rows.");
    await expect
      .poll(() => tableCells(page))
      .toEqual([
        ["1", "Where is my order?", "Today", "", "Edit\nDelete"],
        ["2", "Refund, please?", "No", "gold", "Edit\nDelete"],
        ["3", "boom", "", "silver", "Edit\nDelete"],
      ]);

    await page.getByRole("button", { name: "Delete row 2" }).click();
    await expect
      .poll(() => tableCells(page).then((rows) => rows.map((row) => row[1])))
      .toEqual(["Where is my order?", "boom"]);
    await page.getByLabel("Name of column tier").waitFor();
    await page.getByRole("button", { name: "Delete column tier" }).click();
    await expect.poll(() => page.getByLabel("Name of column tier").count()).toBe(0);

    // The dataset's URL alone opens it (a shared link).
    await page.goto(datasetUrl);
    await expect.poll(() => tableCells(page).then((rows) => rows.length)).toBe(2);
    await expectAccessible(page, "dataset editor");
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("imports a long CSV in batches of 100 and pages through the rows 50 at a time", async () => {
    const { page, problems } = await world.newPage();
    await signIn(world, page, world.keys.full);
    await page.goto(`${world.baseUrl}/datasets?project=${world.projectId}`);
    await page.getByLabel("Title").fill("Order numbers");
    await page.getByRole("button", { name: "New dataset" }).click();
    await page.getByRole("heading", { name: "Order numbers" }).waitFor();
    const lines = Array.from({ length: 120 }, (_, i) => `order-${i + 1}`);
    await page.getByLabel("CSV text").fill(["order", ...lines].join("\n"));
    await page.getByRole("button", { name: "Import rows" }).click();
    await expect.poll(() => page.getByRole("status").allInnerTexts()).toContain("Imported 120 rows.");
    const firstOrders = () => tableCells(page).then((rows) => [rows.length, rows[0]?.[1]]);
    await expect.poll(firstOrders).toEqual([50, "order-1"]);
    const pages = page.getByRole("navigation", { name: "Row pages" });
    await pages.getByRole("button", { name: "Next page" }).click();
    await expect.poll(firstOrders).toEqual([50, "order-51"]);
    await pages.getByRole("button", { name: "Next page" }).click();
    await expect.poll(firstOrders).toEqual([20, "order-101"]);
    expect(await pages.innerText()).toContain("Rows 101–120");
    expect(await pages.getByRole("button", { name: "Next page" }).isDisabled()).toBe(true);
    await pages.getByRole("button", { name: "Previous page" }).click();
    await expect.poll(firstOrders).toEqual([50, "order-51"]);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("computes a prompt column against the fake provider and shows each cell's status", async () => {
    const { page, problems } = await world.newPage();
    await signIn(world, page, world.keys.full);
    await page.goto(datasetUrl);
    await page.getByRole("heading", { name: "Support questions" }).waitFor();
    await page.getByLabel("Column name").fill("draft_answer");
    await page.getByLabel("Type").selectOption("prompt");
    await expect
      .poll(() =>
        page
          .getByLabel(/^Prompt/)
          .locator("option")
          .allTextContents(),
      )
      .toEqual(["Draft answer"]);
    await page.getByRole("button", { name: "Add column" }).click();
    // A slow provider, so that the cells are seen pending before they settle.
    fake.configure({ latencyMs: 1500 });
    await page.getByRole("button", { name: "Compute" }).click();
    await expect.poll(() => page.getByRole("status").allInnerTexts()).toContain("Queued 2 cells.");
    await expect.poll(() => page.locator(".cell-status").allInnerTexts()).toContain("pending");
    fake.configure({ latencyMs: 0 });
    // The table polls while cells are pending: the answer and the failure appear without a reload.
    await expect
      .poll(() => tableCells(page).then((rows) => rows.map((row) => row[3])), { timeout: 30_000 })
      .toEqual([
        expect.stringMatching(/^Echo: Where is my order\?\ndone · (\d+ ms|\d+\.\d+ s) · \$/),
        expect.stringMatching(/^failed: .+/),
      ]);
    await expectAccessible(page, "dataset with computed column");
    await shot(page, "datasets");
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("adds a span to a dataset from the trace view, naming the columns the dataset lacks", async () => {
    const { page, problems } = await world.newPage();
    await signIn(world, page, world.keys.full);
    await page.getByRole("link", { name: "order-question" }).click();
    await page.getByRole("heading", { name: /answer-call/ }).waitFor();
    await page.getByRole("button", { name: "Add to dataset" }).click();
    const form = page.getByRole("form", { name: "Add span to dataset" });
    await form.getByLabel("Dataset").selectOption({ label: "Support questions" });
    await expect
      .poll(() => form.getByLabel("Output to column").locator("option").allTextContents())
      .toContain("reference");
    await form.getByLabel("Output to column").selectOption("reference");
    expect(await form.getByRole("table", { name: "Variables to columns" }).innerText()).toContain(
      "no column “customer”",
    );
    await expectAccessible(page, "add to dataset");
    await form.getByRole("button", { name: "Add span to dataset" }).click();
    await expect.poll(() => form.getByRole("alert").innerText()).toContain("The dataset has no column “customer”");

    const datasetId = new URL(datasetUrl).pathname.split("/").at(-1);
    await api("POST", `/datasets/${datasetId}/columns`, { columns: [{ name: "customer", type: "static" }] });
    await form.getByRole("button", { name: "Add span to dataset" }).click();
    await form.getByRole("status").getByRole("link", { name: "Support questions" }).click();
    await page.getByRole("heading", { name: "Support questions" }).waitFor();
    await expect
      .poll(() => tableCells(page).then((rows) => rows.at(-1)?.slice(1, 3)))
      .toEqual(["Where is order 8812?", "It ships tomorrow."]);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("renames a dataset, sets an api column's headers (secret ones never shown), and adds rows from spans found by a search", async () => {
    const { page, problems } = await world.newPage();
    const dataset = await api("POST", "/datasets", {
      projectId: world.projectId,
      title: "Order questions",
      columns: [
        { name: "question", type: "static" },
        { name: "answer", type: "static" },
        { name: "tier", type: "api", settings: { method: "GET", url: "https://crm.example.com/tier/{{customer}}" } },
      ],
    });
    await signIn(world, page, world.keys.full);
    await page.goto(`${world.baseUrl}/datasets/${dataset.id}?project=${world.projectId}`);
    await page.getByRole("heading", { name: "Order questions" }).waitFor();

    await page.getByRole("button", { name: "Rename dataset" }).click();
    const details = page.getByRole("form", { name: "Dataset details" });
    await details.getByLabel("Dataset title").fill("Order questions (v2)");
    await details.getByLabel("Description").fill("Picked from the logs");
    await details.getByRole("button", { name: "Save details" }).click();
    await page.getByRole("heading", { name: "Order questions (v2)" }).waitFor();
    await expect.poll(() => page.getByText("Picked from the logs").count()).toBe(1);
    expect(await api("GET", `/datasets/${dataset.id}`)).toMatchObject({
      title: "Order questions (v2)",
      description: "Picked from the logs",
    });

    await page.getByRole("button", { name: "Edit headers of column tier" }).click();
    const headers = page.getByRole("form", { name: "Headers of column tier" });
    await headers.getByLabel("Headers (one").fill("Accept application/json");
    await expect.poll(() => headers.getByRole("alert").textContent()).toBe("Line 1 is not “Name: value”.");
    await headers.getByLabel("Headers (one").fill("Accept: application/json\nX-Customer: {{customer}}");
    await headers.getByLabel("Secret headers").fill("Authorization: Bearer crm-s3cret");
    await expectAccessible(page, "dataset, api column headers");
    await headers.getByRole("button", { name: "Save headers" }).click();
    await headers.waitFor({ state: "detached" });
    await expect
      .poll(() => page.getByRole("list").filter({ hasText: "tier" }).innerText())
      .toContain("GET https://crm.example.com/tier/{{customer}} · headers: Accept, X-Customer, Authorization");
    const tier = (await api("GET", `/datasets/${dataset.id}`)).columns.find(
      (column: { name: string }) => column.name === "tier",
    );
    expect(tier.settings).toMatchObject({
      headers: { Accept: "application/json", "X-Customer": "{{customer}}" },
      secretHeaderNames: ["Authorization"],
    });
    await page.getByRole("button", { name: "Edit headers of column tier" }).click();
    expect(await page.content()).not.toContain("crm-s3cret");
    await headers.getByRole("button", { name: "Cancel" }).click();

    const fromSpans = page.getByRole("form", { name: "Add rows from spans" });
    await fromSpans.getByLabel("Span or trace name contains").fill("order");
    await fromSpans.getByLabel("Span output to column").selectOption("answer");
    await fromSpans.getByRole("button", { name: "Add matching spans" }).click();
    await expect
      .poll(() => fromSpans.getByRole("alert").textContent())
      .toBe("Nothing was added: the dataset has no column “customer”.");
    expect((await api("GET", `/datasets/${dataset.id}`)).rowCount).toBe(0);
    await page.getByLabel("Column name").fill("customer");
    await page.getByRole("button", { name: "Add column" }).click();
    await page.getByLabel("Name of column customer").waitFor();
    await fromSpans.getByRole("button", { name: "Add matching spans" }).click();
    await expect.poll(() => fromSpans.getByRole("status").textContent()).toBe("Added 1 row.");
    await expect
      .poll(() => tableCells(page).then((rows) => rows.map((row) => [row[1], row[2], row[4]])))
      .toEqual([["Where is order 8812?", "It ships tomorrow.", "ACME"]]);
    await fromSpans.getByLabel("Span or trace name contains").fill("no such span");
    await fromSpans.getByRole("button", { name: "Add matching spans" }).click();
    await expect.poll(() => fromSpans.getByRole("status").textContent()).toBe("No span matched: nothing was added.");
    await expectAccessible(page, "dataset, rows from spans");
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("offers a read-only key no edit controls", async () => {
    const { page, problems } = await world.newPage();
    await signIn(world, page, world.keys.readOnly);
    await page.getByRole("link", { name: "Datasets", exact: true }).click();
    await page.getByRole("link", { name: "Support questions" }).waitFor();
    expect(await page.getByRole("button").allInnerTexts()).toEqual(["Sign out"]);
    await expectAccessible(page, "datasets, read-only");
    await page.getByRole("link", { name: "Support questions" }).click();
    await expect.poll(() => tableCells(page).then((rows) => rows.length)).toBe(3);
    expect(await page.getByRole("button").allInnerTexts()).toEqual(["Sign out"]);
    expect(await page.getByRole("textbox").count()).toBe(0);
    await expectAccessible(page, "dataset, read-only");

    await page.goto(`${world.baseUrl}/traces/${traceId}?project=${world.projectId}`);
    await page.getByRole("heading", { name: /answer-call/ }).waitFor();
    expect(await page.getByRole("button", { name: "Add to dataset" }).count()).toBe(0);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
