import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import {
  attributeIndex,
  type Body,
  createTrace,
  missingId,
  newProject,
  patchTrace,
  stepSpan,
  storedTrace,
  T0,
  tagIndex,
  traceBody,
  uniqueRef,
} from "../../testing/log-write-fixtures.ts";

/** A pending trace with a referenceId, two attributes and two tags. */
async function pendingTrace(h: Harness, projectId = h.projectId) {
  const referenceId = uniqueRef("pending");
  const created = await createTrace(
    h,
    traceBody(
      h,
      {
        referenceId,
        status: "pending",
        endedAt: T0 + 500,
        attributes: { draft: true, "user.plan": "pro" },
        tags: ["a", "b"],
      },
      [stepSpan({ startedAt: T0 + 10, endedAt: T0 + 20 })],
      projectId,
    ),
  );
  return { referenceId, traceId: created.traceId };
}

const update = (
  h: Harness,
  name: { traceId?: string | null; referenceId?: string | null },
  logTrace: Body,
  projectId = h.projectId,
) => patchTrace(h, { projectId, ...name, logTrace });

describeEachStore("updateLogTrace", (use) => {
  it("finishes a pending trace by referenceId (200 {success: true}): status, end, latency, updatedAt", async () => {
    const h = use();
    const { referenceId, traceId } = await pendingTrace(h);
    const before = await storedTrace(h, traceId);
    const reply = await update(h, { referenceId }, { status: "success", endedAt: T0 + 4000 });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toEqual({ success: true });
    const after = await storedTrace(h, traceId);
    expect(after).toMatchObject({
      status: "success",
      endedAt: T0 + 4000,
      latency: 4000,
      createdAt: before?.createdAt,
      attributes: before?.attributes,
      tags: before?.tags,
      spanIds: before?.spanIds,
    });
    expect(after?.updatedAt).toBeGreaterThan(before?.updatedAt as number);
    // Any status may replace any other, by traceId too; `null` counts as absent.
    for (const status of ["failure", "pending", "unknown", "success"]) {
      expect((await update(h, { traceId, referenceId: null }, { status })).status).toBe(200);
      expect((await storedTrace(h, traceId))?.status).toBe(status);
    }
    expect((await update(h, { traceId: null, referenceId }, { endedAt: T0 + 1 })).status).toBe(200);
    expect(await storedTrace(h, traceId)).toMatchObject({ endedAt: T0 + 1, latency: 1 });
  });

  it("applies attribute and tag operations in order and keeps the indexed rows in step", async () => {
    const h = use();
    const { traceId } = await pendingTrace(h);
    const reply = await update(
      h,
      { traceId },
      {
        attributes: [
          { operation: "create", key: "feedback", value: "thumbs-up" },
          { operation: "create", key: "feedback", value: 5 },
          { operation: "delete", key: "draft" },
          { operation: "delete", key: "never-there" },
          { operation: "create", key: "reviewed", value: false },
          { operation: "create", key: "gone", value: "soon" },
          { operation: "delete", key: "gone" },
          { operation: "create", key: "constructor", value: "a plain key" },
        ],
        tags: [
          { operation: "create", tag: "reviewed" },
          { operation: "create", tag: "a" },
          { operation: "delete", tag: "b" },
          { operation: "delete", tag: "never-there" },
          { operation: "create", tag: "temp" },
          { operation: "delete", tag: "temp" },
        ],
      },
    );
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const trace = await storedTrace(h, traceId);
    expect(trace?.attributes).toEqual({ "user.plan": "pro", feedback: 5, reviewed: false, constructor: "a plain key" });
    expect(trace?.tags).toEqual(["a", "reviewed"]);
    expect(trace).toMatchObject({ status: "pending", endedAt: T0 + 500 });

    const owner = { projectId: h.projectId, ownerKind: "trace", ownerId: traceId, startedAt: T0 };
    expect(await attributeIndex(h, "trace", traceId)).toEqual({
      "user.plan": { ...owner, textValue: "pro", numberValue: null, booleanValue: null },
      feedback: { ...owner, textValue: null, numberValue: 5, booleanValue: null },
      reviewed: { ...owner, textValue: null, numberValue: null, booleanValue: 0 },
      constructor: { ...owner, textValue: "a plain key", numberValue: null, booleanValue: null },
    });
    expect(await tagIndex(h, "trace", traceId)).toEqual(["a", "reviewed"]);
  });

  it("400 VALIDATION_ERROR for both or neither of traceId and referenceId", async () => {
    const h = use();
    const { traceId, referenceId } = await pendingTrace(h);
    for (const name of [{}, { traceId: null, referenceId: null }, { traceId, referenceId }]) {
      const reply = await update(h, name, { status: "success" });
      await expectError(reply, 400, "VALIDATION_ERROR");
      expect(reply.body.error.details.map((d: { field: string }) => d.field)).toEqual(["traceId"]);
    }
  });

  it("400 VALIDATION_ERROR for an end not after the stored start, and over 100 attributes or tags; nothing changes", async () => {
    const h = use();
    const { traceId } = await pendingTrace(h);
    for (const endedAt of [T0, T0 - 1]) {
      const reply = await update(h, { traceId }, { endedAt, status: "success" });
      await expectError(reply, 400, "VALIDATION_ERROR");
      expect(reply.body.error.details.map((d: { field: string }) => d.field)).toEqual(["logTrace.endedAt"]);
    }
    // 98 attributes and 98 tags stored: 2 more are fine, a third is one too many.
    const attributes = Object.fromEntries(Array.from({ length: 98 }, (_, i) => [`k${i}`, i]));
    const tags = Array.from({ length: 98 }, (_, i) => `t${i}`);
    const full = await createTrace(h, traceBody(h, { attributes, tags }));
    const three = (prefix: string) => [0, 1, 2].map((i) => `${prefix}-new-${i}`);
    const tooMany = await update(
      h,
      { traceId: full.traceId },
      {
        status: "failure",
        attributes: three("k").map((key) => ({ operation: "create", key, value: 1 })),
        tags: three("t").map((tag) => ({ operation: "create", tag })),
      },
    );
    await expectError(tooMany, 400, "VALIDATION_ERROR");
    expect(tooMany.body.error.details.map((d: { field: string }) => d.field)).toEqual([
      "logTrace.attributes",
      "logTrace.tags",
    ]);
    const stored = await storedTrace(h, full.traceId);
    expect(stored?.status).toBe("success");
    expect(Object.keys(stored?.attributes)).toHaveLength(98);
    expect(Object.keys(await attributeIndex(h, "trace", full.traceId))).toHaveLength(98);
    // Replacing a key or deleting first keeps the count within 100.
    const within = await update(
      h,
      { traceId: full.traceId },
      {
        attributes: [
          { operation: "delete", key: "k0" },
          ...three("k").map((key) => ({ operation: "create", key, value: 1 })),
          { operation: "create", key: "k1", value: "replaced" },
        ],
        tags: [{ operation: "delete", tag: "t0" }, ...three("t").map((tag) => ({ operation: "create", tag }))],
      },
    );
    expect(within.status, JSON.stringify(within.body)).toBe(200);
    expect(Object.keys(await attributeIndex(h, "trace", full.traceId))).toHaveLength(100);
    expect(await tagIndex(h, "trace", full.traceId)).toHaveLength(100);
  });

  it("404 RESOURCE_NOT_FOUND for an unknown trace and a trace of another project", async () => {
    const h = use();
    const { referenceId } = await pendingTrace(h);
    const elsewhere = await newProject(h);
    const foreign = await pendingTrace(h, elsewhere);
    const cases: [{ traceId?: string; referenceId?: string }, string?][] = [
      [{ traceId: missingId("trace") }],
      [{ referenceId: uniqueRef("nobody") }],
      [{ traceId: foreign.traceId }],
      [{ referenceId: foreign.referenceId }],
      [{ referenceId }, elsewhere],
    ];
    for (const [name, projectId] of cases) {
      await expectError(await update(h, name, { status: "success" }, projectId), 404, "RESOURCE_NOT_FOUND");
    }
  });
});
