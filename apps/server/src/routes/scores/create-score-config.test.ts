import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore } from "../../testing/harness.ts";
import { newProject } from "../../testing/log-write-fixtures.ts";
import { createScoreConfig, postScoreConfig } from "../../testing/score-fixtures.ts";

describeEachStore("createScoreConfig", (use) => {
  it("creates numeric, categorical and boolean configs (201) and reads them back", async () => {
    const h = use();
    const numeric = await createScoreConfig(h, {
      name: "helpfulness",
      description: "0 to 1",
      rule: { type: "numeric", min: 0, max: 1 },
    });
    expect(numeric).toMatchObject({
      projectId: h.projectId,
      name: "helpfulness",
      description: "0 to 1",
      rule: { type: "numeric", min: 0, max: 1 },
    });
    expect(numeric.id).toMatch(/^scoreconfig_/);
    // Open bounds read back as null; description defaults to "".
    const open = await createScoreConfig(h, { name: "latency-rating", rule: { type: "numeric", min: 1 } });
    expect(open).toMatchObject({ description: "", rule: { type: "numeric", min: 1, max: null } });
    const categorical = await createScoreConfig(h, {
      name: "verdict",
      rule: { type: "categorical", categories: ["correct", "wrong"] },
    });
    expect(categorical.rule).toEqual({ type: "categorical", categories: ["correct", "wrong"] });
    const boolean = await createScoreConfig(h, { name: "thumbs", rule: { type: "boolean" } });
    expect(boolean.rule).toEqual({ type: "boolean" });

    const read = await h.request("GET", `/projects/${h.projectId}/score-configs/${numeric.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(numeric);
    const list = await h.request("GET", `/projects/${h.projectId}/score-configs?sort=createdAt:asc&limit=3`);
    expect(list.status).toBe(200);
    expect(list.body.scoreConfigs).toEqual([numeric, open, categorical]);
    const next = await h.request(
      "GET",
      `/projects/${h.projectId}/score-configs?sort=createdAt:asc&limit=3&cursor=${list.body.pagination.nextCursor}`,
    );
    expect(next.body.scoreConfigs).toEqual([boolean]);
  });

  it("409 for a second config of a name in the project; another project may reuse the name", async () => {
    const h = use();
    const projectId = await newProject(h);
    await createScoreConfig(h, { name: "thumbs", rule: { type: "boolean" } }, projectId);
    const again = await postScoreConfig(h, { name: "thumbs", rule: { type: "numeric" } }, projectId);
    await expectError(again, 409, "CONFLICT");
    await createScoreConfig(h, { name: "thumbs", rule: { type: "boolean" } }, await newProject(h));
  });

  it("400 for min above max, no categories, repeated categories, an unknown rule type", async () => {
    const h = use();
    const rejected: [Record<string, unknown>, string][] = [
      [{ type: "numeric", min: 2, max: 1 }, "rule.max"],
      [{ type: "categorical", categories: [] }, "rule.categories"],
      [{ type: "categorical", categories: ["a", "a"] }, "rule.categories"],
      [{ type: "stars" }, "rule.type"],
    ];
    for (const [rule, field] of rejected) {
      const reply = await postScoreConfig(h, { name: "bad", rule });
      await expectError(reply, 400, "VALIDATION_ERROR");
      expect(reply.body.error.details.map((detail: { field: string }) => detail.field)).toContain(field);
    }
    const list = await h.request("GET", `/projects/${h.projectId}/score-configs`);
    expect(list.body.scoreConfigs.map((config: { name: string }) => config.name)).not.toContain("bad");
  });

  it("needs a full key (403 for read-only and ingest-only); a config of another project is 404", async () => {
    const h = use();
    for (const role of ["read-only", "ingest-only"] as const) {
      const reply = await h.request("POST", `/projects/${h.projectId}/score-configs`, {
        body: { name: "x", rule: { type: "boolean" } },
        key: await h.newKey(role),
      });
      await expectError(reply, 403, "FORBIDDEN");
    }
    const config = await createScoreConfig(h, { name: "owned", rule: { type: "boolean" } });
    const other = await newProject(h);
    await expectError(
      await h.request("GET", `/projects/${other}/score-configs/${config.id}`),
      404,
      "RESOURCE_NOT_FOUND",
    );
  });
});
