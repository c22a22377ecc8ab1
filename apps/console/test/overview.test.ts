/**
 * The overview, sessions and users as a person uses them, in a real Chromium against a real server
 * (harness.ts): traces of several models, users and a three-turn session written through the API, read with a
 * read-only key (it sees everything here). Each scenario checks what is on the screen; axe-core checks each screen.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleWorld, expectAccessible, shot, signIn, startConsoleWorld } from "./harness.ts";

let world: ConsoleWorld;
let promptId: string;
const text = (value: string) => [{ modality: "text", value }];
const escaped = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

interface Turn {
  name: string;
  model: string;
  question: string;
  answer: string;
  cost: number;
  tokens: [number, number];
  at: number;
  sessionId?: string;
  userId?: string;
  status?: "success" | "failure";
  promptId?: string;
  withTool?: boolean;
}

async function writeTrace(turn: Turn) {
  const status = turn.status ?? "success";
  await world.api("POST", "/logs/trace", {
    projectId: world.projectId,
    trace: {
      name: turn.name,
      referenceId: `request-${turn.name}`,
      status,
      startedAt: turn.at,
      endedAt: turn.at + 3000,
      ...(turn.sessionId && { sessionId: turn.sessionId }),
      ...(turn.userId && { userId: turn.userId }),
    },
    spans: [
      {
        name: "llm-call",
        status,
        startedAt: turn.at + 100,
        endedAt: turn.at + 1600,
        referenceId: "llm",
        ...(turn.promptId && { promptId: turn.promptId }),
        content: {
          type: "Model",
          provider: "openai",
          model: turn.model,
          input: JSON.stringify({
            messages: [
              { role: "system", content: text("You answer questions about orders.") },
              { role: "user", content: text(turn.question) },
            ],
          }),
          output: JSON.stringify({
            messages: [{ role: "assistant", content: text(turn.answer) }],
            tokenUsage: {
              promptTokens: turn.tokens[0],
              completionTokens: turn.tokens[1],
              totalTokens: turn.tokens[0] + turn.tokens[1],
            },
          }),
          cost: turn.cost,
        },
      },
      ...(turn.withTool
        ? [
            {
              name: "lookup_order",
              status: "success",
              startedAt: turn.at + 1700,
              endedAt: turn.at + 1750,
              referenceId: "tool",
              parentReferenceId: "llm",
              content: { type: "Tool", input: '{"orderId":"8812"}', output: '{"status":"shipped"}' },
            },
          ]
        : []),
    ],
  });
}

// Written an hour ago, a few minutes apart, so that every window of the overview holds them.
const NOW = Date.now();
const ago = (minutes: number) => NOW - minutes * 60_000;
const conversationTurns = [
  { question: "Where is my order 8812?", answer: "It ships tomorrow from Lyon." },
  { question: "Can I change the delivery address?", answer: "Yes, until it ships: send me the new address." },
  { question: "12 Rue Oberkampf, Paris.", answer: "Done: order 8812 now goes to 12 Rue Oberkampf." },
];

beforeAll(async () => {
  world = await startConsoleWorld();
  promptId = (await world.api("POST", "/prompts", { projectId: world.projectId, title: "Refund answer" })).id;
  for (const [index, turn] of conversationTurns.entries()) {
    await writeTrace({
      name: `support-turn-${index + 1}`,
      model: "gpt-4o-mini",
      ...turn,
      cost: 0.0015,
      tokens: [120, 30],
      at: ago(60 - index * 2),
      sessionId: "conv-ada",
      userId: "user-ada",
    });
  }
  await writeTrace({
    name: "refund-question",
    model: "claude-3-5-haiku",
    question: "Why was I charged twice?",
    answer: "I could not reach the billing system.",
    cost: 0.004,
    tokens: [400, 80],
    at: ago(50),
    userId: "user-bob",
    status: "failure",
    promptId,
  });
  await writeTrace({
    name: "catalog-question",
    model: "gpt-4o",
    question: "Do you sell umbrellas?",
    answer: "Yes, three models.",
    cost: 0.01,
    tokens: [200, 100],
    at: ago(40),
    withTool: true,
  });
  // End-user feedback and a graded judgement: two numeric and three boolean scores (categorical ones are not averaged).
  await world.api("POST", `/projects/${world.projectId}/scores`, {
    scores: [
      { traceReferenceId: "request-support-turn-1", name: "helpfulness", value: 0.5 },
      { traceReferenceId: "request-support-turn-2", name: "helpfulness", value: 1 },
      { traceReferenceId: "request-support-turn-1", name: "thumbs", value: true },
      { traceReferenceId: "request-support-turn-2", name: "thumbs", value: true },
      { traceReferenceId: "request-refund-question", name: "thumbs", value: false },
      { traceReferenceId: "request-refund-question", name: "label", value: "billing" },
    ],
  });
});

afterAll(async () => {
  await world?.close();
});

/** The value cell of a totals table's row. */
const total = (page: Page, label: string) =>
  page
    .getByRole("table", { name: /^Totals,/ })
    .getByRole("row", { name: new RegExp(`^${label}\\b`) })
    .getByRole("cell");

describe("overview", () => {
  it("shows the window's totals, charts loaded only on this screen, and breakdowns by model, prompt and user in the URL", async () => {
    const { page, problems } = await world.newPage();
    const chartChunks: string[] = [];
    page.on("request", (request) => {
      if (/time-chart.*\.js$/.test(request.url())) chartChunks.push(request.url());
    });
    await signIn(world, page, world.keys.readOnly);
    expect(chartChunks, "the chart library is not part of the first load").toEqual([]);

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Overview" }).click();
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    await expect.poll(() => total(page, "Traces").textContent()).toBe("5");
    expect(await total(page, "Spans").textContent()).toBe("6");
    expect(await total(page, "Cost").textContent()).toBe("$0.018500");
    expect(await total(page, "Input tokens").textContent()).toBe("960");
    expect(await total(page, "Output tokens").textContent()).toBe("270");
    expect(await total(page, "Error rate").textContent()).toBe("16.7 %");
    expect(await total(page, "Latency p50").textContent()).toMatch(/^1\.\d\d s$/);

    // Each chart is drawn (uPlot arrived with the screen) and has its numbers as a table.
    await expect.poll(() => page.locator("figure.chart canvas").count()).toBeGreaterThanOrEqual(6);
    expect(chartChunks).toHaveLength(1);
    await shot(page, "overview");
    await page.getByText("Tokens as a table").click();
    const tokens = page
      .getByRole("table")
      .filter({ has: page.getByRole("columnheader", { name: "Input", exact: true }) });
    const inputs = await tokens.locator("tbody tr td:nth-child(2)").allTextContents();
    expect(inputs.reduce((sum, cell) => sum + Number(cell.replace(/,/g, "")), 0)).toBe(960);

    const byModel = page.getByRole("table", { name: "Totals by model" });
    expect(
      await byModel
        .getByRole("row", { name: /^gpt-4o-mini/ })
        .getByRole("cell")
        .allTextContents(),
    ).toEqual(["3", "0.0 %", "$0.004500", "360", "90", expect.stringMatching(/ s$/)]);
    expect(
      await byModel
        .getByRole("row", { name: /^claude-3-5-haiku/ })
        .getByRole("cell")
        .nth(1)
        .textContent(),
    ).toBe("100.0 %");
    const scores = page.getByRole("table", { name: /^Scores by name/ });
    expect(
      await scores
        .getByRole("row", { name: /^helpfulness/ })
        .getByRole("cell")
        .allTextContents(),
    ).toEqual(["2", "0.75"]);
    expect(
      await scores
        .getByRole("row", { name: /^thumbs/ })
        .getByRole("cell")
        .allTextContents(),
    ).toEqual(["3", "0.667"]);
    expect(await scores.getByRole("row", { name: /^label/ }).count()).toBe(0);
    await expectAccessible(page, "overview");

    await page.getByLabel("Break down by").selectOption("prompt");
    const byPrompt = page.getByRole("table", { name: "Totals by prompt" });
    await expect
      .poll(() =>
        byPrompt
          .getByRole("row", { name: /^Refund answer/ })
          .getByRole("cell")
          .nth(2)
          .textContent(),
      )
      .toBe("$0.004000");
    expect(
      await byPrompt
        .getByRole("row", { name: /^\(no prompt\)/ })
        .getByRole("cell")
        .first()
        .textContent(),
    ).toBe("5");

    await page.getByLabel("Window").selectOption("30d");
    await expect.poll(() => page.getByRole("table", { name: "Totals, last 30 days" }).isVisible()).toBe(true);
    expect(new URL(page.url()).searchParams.get("window")).toBe("30d");
    expect(new URL(page.url()).searchParams.get("group")).toBe("prompt");
    expect(await total(page, "Traces").textContent()).toBe("5");
    await expect.poll(() => page.getByText(/UTC, by day$/).isVisible()).toBe(true);

    // The URL is the screen: opened afresh in another tab, it shows the same choices.
    const shared = await world.newPage();
    await signIn(world, shared.page, world.keys.readOnly);
    await shared.page.goto(page.url());
    await shared.page.getByRole("table", { name: "Totals by prompt" }).waitFor();
    expect(await shared.page.getByLabel("Window").inputValue()).toBe("30d");

    // By the traces' end users: a span counts under its trace's user.
    await page.getByLabel("Break down by").selectOption("user");
    const byUser = page.getByRole("table", { name: "Totals by user" });
    const spansOf = (name: RegExp) => byUser.getByRole("row", { name }).getByRole("cell").first().textContent();
    await expect.poll(() => spansOf(/^user-ada/)).toBe("3");
    expect(await spansOf(/^user-bob/)).toBe("1");
    expect(await spansOf(/^\(no user\)/)).toBe("2");
    expect(new URL(page.url()).searchParams.get("group")).toBe("user");
    expect(problems).toEqual([]);
    await page.close();
    await shared.page.close();
  });
});

describe("sessions and users", () => {
  it("lists sessions and users with their totals, sorts them in the URL, and opens a user's traces", async () => {
    const { page, problems } = await world.newPage();
    await signIn(world, page, world.keys.readOnly);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Sessions" }).click();
    await page.getByRole("heading", { name: "Sessions and users" }).waitFor();
    const session = page.getByRole("row", { name: /^conv-ada/ });
    await session.waitFor();
    // Traces, errors, cost, input and output tokens.
    expect((await session.getByRole("cell").allTextContents()).slice(2)).toEqual(["3", "0", "$0.004500", "360", "90"]);

    await page.getByRole("link", { name: "Users" }).click();
    await page.getByRole("row", { name: /^user-bob/ }).waitFor();
    expect(
      (
        await page
          .getByRole("row", { name: /^user-bob/ })
          .getByRole("cell")
          .allTextContents()
      ).slice(2),
    ).toEqual(["1", "1", "$0.004000", "400", "80"]);
    await page.getByLabel("Sort").selectOption("cost:desc");
    await expect
      .poll(async () => (await page.locator("tbody th").allTextContents()).join(","))
      .toBe("user-ada,user-bob");
    await page.getByLabel("Sort").selectOption("cost:asc");
    await expect
      .poll(async () => (await page.locator("tbody th").allTextContents()).join(","))
      .toBe("user-bob,user-ada");
    const url = new URL(page.url());
    expect([url.searchParams.get("tab"), url.searchParams.get("sort")]).toEqual(["users", "cost:asc"]);
    await expectAccessible(page, "users");

    await page.getByRole("link", { name: "user-bob" }).click();
    await page.getByRole("heading", { name: "Traces" }).waitFor();
    expect(await page.getByLabel("User").inputValue()).toBe("user-bob");
    await expect.poll(() => page.getByText("1 traces").isVisible()).toBe(true);
    await page.getByRole("link", { name: "refund-question" }).waitFor();
    expect(problems).toEqual([]);
    await page.close();
  });

  it("reads a session as a conversation, turn by turn, each turn linking to its trace", async () => {
    const { page, problems } = await world.newPage();
    await signIn(world, page, world.keys.readOnly);
    await page.goto(`${world.baseUrl}/sessions?project=${world.projectId}`);
    // By keyboard: the session's row is a link.
    await page.getByRole("link", { name: "conv-ada" }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Session conv-ada" }).waitFor();
    const conversation = page.getByRole("list", { name: "Conversation" });
    await expect.poll(() => conversation.locator("> li").count()).toBe(3);
    for (const [index, turn] of conversationTurns.entries()) {
      const messages = page.getByRole("list", { name: `Turn ${index + 1}`, exact: true });
      expect(await messages.locator("> li").allInnerTexts()).toEqual([
        expect.stringMatching(new RegExp(`user\\s+${escaped(turn.question)}`, "i")),
        expect.stringMatching(new RegExp(`assistant\\s+${escaped(turn.answer)}`, "i")),
      ]);
    }
    await expectAccessible(page, "session");
    await shot(page, "sessions");

    await page.getByRole("link", { name: "support-turn-2" }).click();
    await page.getByRole("heading", { name: "support-turn-2" }).waitFor();
    expect(new URL(page.url()).searchParams.get("span")).toMatch(/^span_/);
    await page
      .getByRole("list", { name: "Output messages" })
      .getByText(conversationTurns[1]?.answer ?? "")
      .waitFor();
    expect(problems).toEqual([]);
    await page.close();
  });
});
