/**
 * The trace list's live tail, its configurable columns and its user, attribute and score filters, and the scores
 * in the trace view, in Chromium against a real server (harness.ts).
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleWorld, expectAccessible, signIn, startConsoleWorld } from "./harness.ts";

let world: ConsoleWorld;
const traceIds: Record<string, string> = {};
const spanIds: Record<string, string> = {};
// Recent enough that a trace written during the test is the newest.
const T0 = Date.now() - 3_600_000;

async function writeTrace(name: string, at: number, extra: { userId?: string; attributes?: object } = {}) {
  const { traceId, spanIds: spans } = await world.api("POST", "/logs/trace", {
    projectId: world.projectId,
    trace: { name, status: "success", startedAt: at, endedAt: at + 800, ...extra },
    spans: [
      {
        name: `${name}-call`,
        status: "success",
        startedAt: at + 10,
        endedAt: at + 700,
        content: { type: "Tool", input: "{}", output: "{}" },
      },
    ],
  });
  traceIds[name] = traceId;
  spanIds[name] = spans[0];
}

const list = (page: Page) => page.getByRole("region", { name: "Trace list" });
const names = (page: Page) => list(page).locator("tbody a").allTextContents();

beforeAll(async () => {
  world = await startConsoleWorld();
  await writeTrace("ann-checkout", T0, { userId: "user-ann", attributes: { plan: "pro" } });
  await writeTrace("bob-checkout", T0 + 60_000, { userId: "user-bob", attributes: { plan: "free" } });
  await writeTrace("bob-refund", T0 + 120_000, { userId: "user-bob", attributes: { plan: "pro" } });
  await world.api("POST", `/projects/${world.projectId}/scores`, {
    scores: [
      { traceId: traceIds["ann-checkout"], name: "helpfulness", value: 0.9, comment: "Solved it" },
      { spanId: spanIds["ann-checkout"], name: "thumbs", value: true },
      { traceId: traceIds["bob-checkout"], name: "helpfulness", value: 0.2 },
    ],
  });
});

afterAll(async () => {
  await world?.close();
});

describe("the trace list's extras in Chromium", () => {
  it("narrows the list by user, attribute and score, each kept in the URL", async () => {
    const { page, problems } = await world.newPage();
    await signIn(world, page, world.keys.full);
    await expect.poll(() => names(page)).toEqual(["bob-refund", "bob-checkout", "ann-checkout"]);

    await page.getByLabel("User").fill("user-bob");
    await page.getByRole("button", { name: "Apply" }).click();
    await expect.poll(() => names(page)).toEqual(["bob-refund", "bob-checkout"]);
    await page.getByLabel("Attribute").fill("plan = pro");
    await page.getByRole("button", { name: "Apply" }).click();
    await expect.poll(() => names(page)).toEqual(["bob-refund"]);
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toMatchObject({
      user: "user-bob",
      attribute: "plan = pro",
    });

    await page.goto(`${world.baseUrl}/?project=${world.projectId}&score=${encodeURIComponent("helpfulness >= 0.5")}`);
    await expect.poll(() => names(page)).toEqual(["ann-checkout"]);
    await page.getByLabel("Score").fill("helpfulness");
    await page.getByRole("button", { name: "Apply" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/Write the score filter as/);
    expect(new URL(page.url()).searchParams.get("score")).toBe("helpfulness >= 0.5");
    await expectAccessible(page, "traces, filtered");
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("keeps a column toggled on across a reload", async () => {
    const { page, problems } = await world.newPage();
    await signIn(world, page, world.keys.full);
    const headers = () => list(page).getByRole("columnheader").allTextContents();
    await expect.poll(headers).not.toContain("Scores");
    await page.getByRole("button", { name: "Columns" }).click();
    await page.getByRole("group", { name: "Shown columns" }).getByLabel("Scores").check();
    await page.getByRole("group", { name: "Shown columns" }).getByLabel("Cost").uncheck();
    await expectAccessible(page, "traces, choosing columns");
    await page.reload();
    await list(page).getByRole("link", { name: "ann-checkout" }).waitFor();
    expect(await headers()).toEqual(["Name", "Status", "Started", "Latency", "Tokens", "Session", "Tags", "Scores"]);
    expect(
      await list(page)
        .getByRole("row", { name: /ann-checkout/ })
        .innerText(),
    ).toMatch(/helpfulness: 0\.9, thumbs: true/);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("puts a trace written after the page opened on top while live tail is on", async () => {
    const { page, problems } = await world.newPage();
    await signIn(world, page, world.keys.full);
    await expect.poll(() => names(page)).toEqual(["bob-refund", "bob-checkout", "ann-checkout"]);
    await page.getByLabel("Live tail").check();
    await writeTrace("arrived-live", Date.now());
    await expect
      .poll(() => names(page), { timeout: 10_000 })
      .toEqual(["arrived-live", "bob-refund", "bob-checkout", "ann-checkout"]);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("shows the trace's and the selected span's scores in the trace view", async () => {
    const { page, problems } = await world.newPage();
    await signIn(world, page, world.keys.full);
    await list(page).getByRole("link", { name: "ann-checkout" }).click();
    const traceScores = page.getByRole("table", { name: "Trace scores" });
    await traceScores.waitFor();
    expect(await traceScores.getByRole("row").nth(1).innerText()).toMatch(/helpfulness\s+0\.9\s+api\s+Solved it/);
    const spanScores = page.getByRole("table", { name: "Span scores" });
    expect(await spanScores.getByRole("row").nth(1).innerText()).toMatch(/thumbs\s+true\s+api/);
    await expectAccessible(page, "trace detail with scores");
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
