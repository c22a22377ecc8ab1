import { expect, it } from "vitest";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import { expectError, itHidesOtherWorkspaces, itRejectsMissingAndInvalidKeys } from "../../testing/shared-cases.ts";

const RUBRIC = { type: "llm-as-a-judge", value: "Pass if the answer is polite." };

async function fixture(h: Harness, projectId = h.projectId) {
  const prompt = await h.request("POST", "/prompts", { body: { projectId, title: "Support" } });
  const dataset = await h.request("POST", "/datasets", { body: { projectId, title: "Questions" } });
  expect([prompt.status, dataset.status]).toEqual([201, 201]);
  return { promptId: prompt.body.id as string, datasetId: dataset.body.id as string };
}

async function createEvaluator(h: Harness, promptId: string, body: Record<string, unknown>) {
  return h.request("POST", `/prompts/${promptId}/evaluators`, {
    body: { projectId: h.projectId, title: "E", ...body },
  });
}

describeEachStore("evaluators", (use) => {
  it("creates an evaluator (201, active, normalized config) and reads it back", async () => {
    const h = use();
    const { promptId, datasetId } = await fixture(h);
    const created = await createEvaluator(h, promptId, { datasetId, title: "Polite", config: RUBRIC });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      promptId,
      datasetId,
      title: "Polite",
      status: "active",
      config: { ...RUBRIC, group: "ai-powered", judgeModel: null },
    });
    const read = await h.request("GET", `/prompts/${promptId}/evaluators/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });

  it("fills defaults of every config type and checks their save-time rules (400)", async () => {
    const h = use();
    const { promptId, datasetId } = await fixture(h);
    const accepted: [Record<string, unknown>, Record<string, unknown>][] = [
      [
        { type: "text-matcher", operator: "contains-any", value: ["a"] },
        { group: "code", caseSensitive: true },
      ],
      [{ type: "json", mode: "exact-match", expected: '{"a":1}' }, { group: "code" }],
      [{ type: "json", mode: "schema", schema: { type: "object" } }, { group: "code" }],
      [
        { type: "javascript", code: "return { grade: 'pass', score: 1, reason: '' };" },
        { group: "code", timeoutMs: 5000 },
      ],
      [{ type: "cost", operator: "less-than", threshold: 0.01 }, { group: "performance" }],
      [{ type: "latency", operator: "less-than", threshold: 2, unit: "s" }, { group: "performance" }],
      [{ type: "response-length", operator: "greater-than", threshold: 3, unit: "words" }, { group: "performance" }],
    ];
    for (const [config, filled] of accepted) {
      const reply = await createEvaluator(h, promptId, { datasetId, config });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      expect(reply.body.config).toEqual({ ...config, ...filled });
    }
    const rejected: [Record<string, unknown>, string][] = [
      [{ type: "text-matcher", operator: "equals", value: ["a"] }, "config.value"],
      [{ type: "text-matcher", operator: "contains-all", value: "a" }, "config.value"],
      [{ type: "text-matcher", operator: "regex", value: "(" }, "config.value"],
      [{ type: "json", mode: "exact-match" }, "config.expected"],
      [{ type: "json", mode: "valid-json", expected: "{}" }, "config.expected"],
      [{ type: "json", mode: "exact-match", expected: "{nope" }, "config.expected"],
      [{ type: "json", mode: "schema" }, "config.schema"],
      [{ type: "javascript", code: "return {" }, "config.code"],
      [{ ...RUBRIC, group: "code" }, "config.group"],
    ];
    for (const [config, field] of rejected) {
      const reply = await createEvaluator(h, promptId, { datasetId, config });
      await expectError(reply, 400, "VALIDATION_ERROR");
      expect(reply.body.error.details[0].field).toBe(field);
    }
    await expectError(
      await createEvaluator(h, promptId, { datasetId, config: { type: "vibes", value: "x" } }),
      400,
      "VALIDATION_ERROR",
    );
  });

  it("validates title, project and dataset (400/404)", async () => {
    const h = use();
    const { promptId, datasetId } = await fixture(h);
    await expectError(
      await createEvaluator(h, promptId, { datasetId, title: "t".repeat(201), config: RUBRIC }),
      400,
      "VALIDATION_ERROR",
    );
    await expectError(
      await createEvaluator(h, promptId, { datasetId, title: "", config: RUBRIC }),
      400,
      "VALIDATION_ERROR",
    );
    const { body: otherProject } = await h.request("POST", "/projects", { body: { title: "Other" } });
    const other = await fixture(h, otherProject.id);
    const wrongProject = await createEvaluator(h, promptId, { datasetId, projectId: otherProject.id, config: RUBRIC });
    await expectError(wrongProject, 400, "VALIDATION_ERROR");
    const wrongDataset = await createEvaluator(h, promptId, { datasetId: other.datasetId, config: RUBRIC });
    await expectError(wrongDataset, 400, "VALIDATION_ERROR");
    const unknownDataset = await createEvaluator(h, promptId, {
      datasetId: `dataset_${"0".repeat(26)}`,
      config: RUBRIC,
    });
    await expectError(unknownDataset, 404, "RESOURCE_NOT_FOUND");
    await expectError(
      await createEvaluator(h, `prompt_${"0".repeat(26)}`, { datasetId, config: RUBRIC }),
      404,
      "RESOURCE_NOT_FOUND",
    );
    await expectError(
      await createEvaluator(h, promptId, { datasetId: "short", config: RUBRIC }),
      400,
      "VALIDATION_ERROR",
    );
  });

  it("checks a judge model's providerId: a record of the workspace (201/200), else 404", async () => {
    const h = use();
    const { promptId, datasetId } = await fixture(h);
    const record = await h.request("POST", "/providers", { body: { provider: "openai", displayName: "Judge" } });
    const foreign = await h.request("POST", "/providers", {
      body: { provider: "openai", displayName: "Judge" },
      key: (await h.otherWorkspace()).key,
    });
    const judged = (providerId: string) => ({ ...RUBRIC, judgeModel: { providerId, model: "gpt-4o-mini" } });
    const created = await createEvaluator(h, promptId, { datasetId, config: judged(record.body.id) });
    expect(created.status).toBe(201);
    expect(created.body.config.judgeModel).toEqual({ providerId: record.body.id, model: "gpt-4o-mini" });
    const path = `/prompts/${promptId}/evaluators/${created.body.id}`;
    for (const providerId of [`provider_${"0".repeat(26)}`, foreign.body.id]) {
      await expectError(
        await createEvaluator(h, promptId, { datasetId, config: judged(providerId) }),
        404,
        "RESOURCE_NOT_FOUND",
      );
      await expectError(
        await h.request("PATCH", path, { body: { config: judged(providerId) } }),
        404,
        "RESOURCE_NOT_FOUND",
      );
    }
    expect((await h.request("GET", path)).body).toEqual(created.body);
    const updated = await h.request("PATCH", path, { body: { config: RUBRIC } });
    expect(updated.body.config.judgeModel).toBeNull();
  });

  it("lists evaluators without config, filters by status, and pages", async () => {
    const h = use();
    const { promptId, datasetId } = await fixture(h);
    const ids: string[] = [];
    for (const title of ["a", "b", "c"]) {
      ids.push((await createEvaluator(h, promptId, { datasetId, title, config: RUBRIC })).body.id);
    }
    await h.request("PATCH", `/prompts/${promptId}/evaluators/${ids[0]}`, { body: { status: "archived" } });
    const page = await h.request("GET", `/prompts/${promptId}/evaluators?limit=2`);
    expect(page.status).toBe(200);
    expect(page.body.evaluators.map((e: { title: string }) => e.title)).toEqual(["c", "b"]);
    expect(page.body.evaluators[0].config).toBeUndefined();
    const next = await h.request(
      "GET",
      `/prompts/${promptId}/evaluators?limit=2&cursor=${page.body.pagination.nextCursor}`,
    );
    expect(next.body.evaluators.map((e: { title: string }) => e.title)).toEqual(["a"]);
    const active = await h.request("GET", `/prompts/${promptId}/evaluators?status=active&sort=createdAt:asc`);
    expect(active.body.evaluators.map((e: { id: string }) => e.id)).toEqual(ids.slice(1));
    await expectError(
      await h.request("GET", `/prompts/${promptId}/evaluators?status=active&cursor=${page.body.pagination.nextCursor}`),
      400,
      "INVALID_CURSOR",
    );
    await expectError(await h.request("GET", `/prompts/${promptId}/evaluators?limit=201`), 400, "VALIDATION_ERROR");
  });

  it("updates title, dataset, config and status; rejects an empty update", async () => {
    const h = use();
    const { promptId, datasetId } = await fixture(h);
    const { body: evaluator } = await createEvaluator(h, promptId, { datasetId, config: RUBRIC });
    const { body: dataset2 } = await h.request("POST", "/datasets", { body: { projectId: h.projectId, title: "D2" } });
    const path = `/prompts/${promptId}/evaluators/${evaluator.id}`;
    const updated = await h.request("PATCH", path, {
      body: { title: "New", datasetId: dataset2.id, config: { type: "cost", operator: "less-than", threshold: 1 } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      title: "New",
      datasetId: dataset2.id,
      config: { type: "cost", group: "performance" },
    });
    expect(updated.body.updatedAt).toBeGreaterThan(evaluator.updatedAt);
    expect((await h.request("PATCH", path, { body: { status: "archived" } })).body.status).toBe("archived");
    expect((await h.request("PATCH", path, { body: { status: "active" } })).body.status).toBe("active");
    await expectError(await h.request("PATCH", path, { body: {} }), 400, "VALIDATION_ERROR");
    await expectError(await h.request("PATCH", path, { body: { title: "t".repeat(201) } }), 400, "VALIDATION_ERROR");
    await expectError(
      await h.request("PATCH", path, { body: { datasetId: `dataset_${"0".repeat(26)}` } }),
      404,
      "RESOURCE_NOT_FOUND",
    );
  });

  it("deletes an evaluator (204); it is then gone (404)", async () => {
    const h = use();
    const { promptId, datasetId } = await fixture(h);
    const { body: evaluator } = await createEvaluator(h, promptId, { datasetId, config: RUBRIC });
    const path = `/prompts/${promptId}/evaluators/${evaluator.id}`;
    const deleted = await h.request("DELETE", path);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBe("");
    await expectError(await h.request("GET", path), 404, "RESOURCE_NOT_FOUND");
    await expectError(await h.request("DELETE", path), 404, "RESOURCE_NOT_FOUND");
  });

  it("answers 404 for an evaluator of another prompt, 403 for restricted or read-only keys", async () => {
    const h = use();
    const { promptId, datasetId } = await fixture(h);
    const { body: evaluator } = await createEvaluator(h, promptId, { datasetId, config: RUBRIC });
    const { body: otherPrompt } = await h.request("POST", "/prompts", { body: { projectId: h.projectId } });
    await expectError(
      await h.request("GET", `/prompts/${otherPrompt.id}/evaluators/${evaluator.id}`),
      404,
      "RESOURCE_NOT_FOUND",
    );
    const readOnly = await h.newKey("read-only");
    expect((await h.request("GET", `/prompts/${promptId}/evaluators`, { key: readOnly })).status).toBe(200);
    await expectError(
      await h.request("POST", `/prompts/${promptId}/evaluators`, {
        key: readOnly,
        body: { projectId: h.projectId, title: "x", datasetId, config: RUBRIC },
      }),
      403,
      "FORBIDDEN",
    );
    const { body: elsewhere } = await h.request("POST", "/projects", { body: { title: "Elsewhere" } });
    const restricted = await h.newKey("full", [elsewhere.id]);
    await expectError(await h.request("GET", `/prompts/${promptId}/evaluators`, { key: restricted }), 403, "FORBIDDEN");
  });

  itRejectsMissingAndInvalidKeys(use, { method: "GET", path: () => `/prompts/prompt_${"0".repeat(26)}/evaluators` });
  itHidesOtherWorkspaces(use, {
    method: "GET",
    path: async (h) => `/prompts/${(await fixture(h)).promptId}/evaluators`,
  });
});
