import { type ErrorDetail, failIfInvalid, notFound } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";
import { fromJson, toJson } from "../json.ts";
import { maskTraceUpdate } from "../masking/mask-logs.ts";
import { maskerOf } from "../masking/masking-rules.ts";
import {
  AUDIENCE_SPAN_COLUMNS,
  addToSpanRollups,
  addToTraceDimensionRollups,
  audienceRollupRows,
  audienceSpans,
  traceDimensionRollupRows,
} from "../metrics/rollups.ts";
import type { BodyOf, Unread } from "../operation-input.ts";
import { requireProject } from "../projects/project.ts";
import { type Attributes, attributeRow, tagRow } from "./log-rows.ts";
import { approximateBytes } from "./write-batcher.ts";

/** A trace may hold at most this many attributes and this many tags. */
const MAX_ATTRIBUTES = 100;
const MAX_TAGS = 100;

/**
 * Changes a trace's status, end, attributes or tags (operations applied in order), as a job of the log write
 * batch; keeps latency, updatedAt and the indexed attribute and tag rows in step; answers once committed.
 */
export async function updateLogTrace(ctx: ServiceContext, body: BodyOf<"updateLogTrace">): Promise<{ success: true }> {
  const { projectId, traceId: givenTraceId, referenceId: givenReferenceId, logTrace: givenChanges, ...unread } = body;
  unread satisfies Unread;
  // `null` counts as absent.
  const traceId = givenTraceId ?? undefined;
  const referenceId = givenReferenceId ?? undefined;
  if ((traceId === undefined) === (referenceId === undefined)) {
    failIfInvalid([{ field: "traceId", issue: "exactly one of traceId and referenceId is required" }]);
  }
  const project = await requireProject(ctx, projectId);
  // Attribute values and tags are masked like those of the write that created the trace.
  const masker = maskerOf(project.maskingRules);
  const changes = masker ? maskTraceUpdate(masker, givenChanges) : givenChanges;
  const now = ctx.now();

  await ctx.logWrites.submit(async (db) => {
    let select = db.selectFrom("logTraces").selectAll().where("projectId", "=", project.id);
    select =
      traceId !== undefined
        ? select.where("id", "=", traceId)
        : select.where("referenceId", "=", referenceId as string);
    // Another replica may change the same trace: hold its row until the batch commits.
    const trace = await ctx.store.sql.locks.forUpdate(select).executeTakeFirst();
    if (!trace) throw notFound("Trace");

    const issues: ErrorDetail[] = [];
    if (changes.endedAt !== undefined && !(changes.endedAt > trace.startedAt)) {
      issues.push({ field: "logTrace.endedAt", issue: "must be after the trace's startedAt" });
    }
    // A Map, not the parsed object: keys such as `__proto__` or `constructor` are plain keys here.
    const attributes = new Map(Object.entries(fromJson<Attributes>(trace.attributes)));
    const touchedKeys = new Set<string>();
    for (const operation of changes.attributes ?? []) {
      touchedKeys.add(operation.key);
      if (operation.operation === "create") attributes.set(operation.key, operation.value);
      else attributes.delete(operation.key);
    }
    if (attributes.size > MAX_ATTRIBUTES) {
      issues.push({
        field: "logTrace.attributes",
        issue: `the trace would have more than ${MAX_ATTRIBUTES} attributes`,
      });
    }
    const tags = fromJson<string[]>(trace.tags);
    const touchedTags = new Set<string>();
    for (const operation of changes.tags ?? []) {
      touchedTags.add(operation.tag);
      const at = tags.indexOf(operation.tag);
      if (operation.operation === "create" && at < 0) tags.push(operation.tag);
      if (operation.operation === "delete" && at >= 0) tags.splice(at, 1);
    }
    if (tags.length > MAX_TAGS) {
      issues.push({ field: "logTrace.tags", issue: `the trace would have more than ${MAX_TAGS} tags` });
    }
    failIfInvalid(issues);

    const endedAt = changes.endedAt ?? trace.endedAt;
    await db
      .updateTable("logTraces")
      .set({
        ...(changes.status !== undefined && { status: changes.status }),
        endedAt,
        latency: endedAt - trace.startedAt,
        ...(changes.attributes !== undefined && { attributes: toJson(Object.fromEntries(attributes)) }),
        ...(changes.tags !== undefined && { tags: toJson(tags) }),
        updatedAt: now,
      })
      .where("id", "=", trace.id)
      .execute();

    // The trace and its spans are counted under the trace's tags (ADR 0017): a change of tags moves their counts.
    const before = fromJson<string[]>(trace.tags);
    if (changes.tags !== undefined && (before.length !== tags.length || before.some((tag) => !tags.includes(tag)))) {
      const spans = await db
        .selectFrom("logSpans")
        .select(AUDIENCE_SPAN_COLUMNS)
        .where("traceId", "=", trace.id)
        .execute();
      const audience = { userId: trace.userId, sessionId: trace.sessionId };
      const moved = [
        { spans: audienceSpans(spans), audience: { ...audience, tags }, before: { ...audience, tags: before } },
      ];
      await addToSpanRollups(db, [], { audience: audienceRollupRows(moved) });
      await addToTraceDimensionRollups(
        db,
        traceDimensionRollupRows([
          { ...trace, tags: before, count: -1 },
          { ...trace, tags },
        ]),
      );
    }

    // The index rows of the keys and tags the operations touched are replaced by their final state.
    const owner = {
      projectId: trace.projectId,
      ownerKind: "trace" as const,
      ownerId: trace.id,
      startedAt: trace.startedAt,
    };
    if (touchedKeys.size > 0) {
      await db
        .deleteFrom("logAttributes")
        .where("projectId", "=", trace.projectId)
        .where("ownerKind", "=", "trace")
        .where("startedAt", "=", trace.startedAt)
        .where("ownerId", "=", trace.id)
        .where("key", "in", [...touchedKeys])
        .execute();
      const kept = [...touchedKeys].filter((key) => attributes.has(key));
      await ctx.store.insertRows(
        db,
        "logAttributes",
        kept.map((key) => attributeRow(owner, key, attributes.get(key) as Attributes[string])),
      );
    }
    if (touchedTags.size > 0) {
      await db
        .deleteFrom("logTags")
        .where("projectId", "=", trace.projectId)
        .where("ownerKind", "=", "trace")
        .where("startedAt", "=", trace.startedAt)
        .where("ownerId", "=", trace.id)
        .where("tag", "in", [...touchedTags])
        .execute();
      const kept = [...touchedTags].filter((tag) => tags.includes(tag));
      await ctx.store.insertRows(
        db,
        "logTags",
        kept.map((tag) => tagRow(owner, tag)),
      );
    }
  }, approximateBytes(changes));
  return { success: true };
}
