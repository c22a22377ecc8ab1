import { expect, it } from "vitest";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import { newProject, postTrace, stepSpan, traceBody } from "../../testing/log-write-fixtures.ts";
import { hexId, keyValues, NS0, sendOtlp } from "../../testing/otel-fixtures.ts";

/**
 * Span origins (ADR 0013): an OTLP span's resource, scope and kind attributes are indexed once per distinct
 * set rather than per span; span search finds the spans by them as by any attribute, and reads return them.
 */

/** An OTLP/JSON request: each resource with its scope (and its scope's attributes) and spans named after them. */
function request(
  resources: {
    resource: Record<string, unknown>;
    scope: Record<string, unknown>;
    spans: { kind: number; name: string }[];
  }[],
) {
  return JSON.stringify({
    resourceSpans: resources.map(({ resource, scope, spans }) => ({
      resource: { attributes: keyValues(resource) },
      scopeSpans: [
        {
          scope: { name: "tracer", version: "2.0.0", attributes: keyValues(scope) },
          spans: spans.map(({ kind, name }, index) => ({
            traceId: hexId(16),
            spanId: hexId(8),
            name,
            kind,
            startTimeUnixNano: String(NS0 + BigInt(100 + index) * 1_000_000n),
            endTimeUnixNano: String(NS0 + BigInt(200 + index) * 1_000_000n),
            attributes: keyValues({ step: name }),
          })),
        },
      ],
    })),
  });
}

async function names(h: Harness, projectId: string, filters: unknown[]): Promise<string[]> {
  const reply = await h.request("POST", "/logs/spans", { body: { projectId, filters, limit: 200 } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return (reply.body.spans as { name: string }[]).map((span) => span.name).sort();
}

const attribute = (key: string, operator: string, value?: unknown) => ({
  column: "attributes",
  key,
  operator,
  ...(value !== undefined && { value }),
});

describeEachStore("exportOtelTraces: span origins", (use) => {
  async function seeded(h: Harness) {
    const projectId = await newProject(h);
    const reply = await sendOtlp(h, {
      projectId,
      body: request([
        {
          resource: { "service.name": "checkout", "service.instance": 7 },
          scope: { "library.flavour": "sweet" },
          spans: [
            { kind: 3, name: "a-client" },
            { kind: 2, name: "a-server" },
          ],
        },
        { resource: { "service.name": "search" }, scope: {}, spans: [{ kind: 3, name: "b-client" }] },
      ]),
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    // A span written natively with an origin-like key: indexed per span, found by the same filters.
    const native = await postTrace(
      h,
      traceBody(
        h,
        {},
        [stepSpan({ name: "native", attributes: { "otel.resource.service.name": "checkout" } })],
        projectId,
      ),
    );
    expect(native.status, JSON.stringify(native.body)).toBe(200);
    return projectId;
  }

  it("finds spans by resource, scope and kind attributes with every operator; reads return them whole", async () => {
    const h = use();
    const projectId = await seeded(h);
    const service = "otel.resource.service.name";
    expect(await names(h, projectId, [attribute(service, "equals", "checkout")])).toEqual([
      "a-client",
      "a-server",
      "native",
    ]);
    expect(await names(h, projectId, [attribute(service, "not-equals", "checkout")])).toEqual(["b-client"]);
    expect(await names(h, projectId, [attribute(service, "in", ["search", "nothing"])])).toEqual(["b-client"]);
    expect(await names(h, projectId, [attribute(service, "not-in", ["search"])])).toEqual([
      "a-client",
      "a-server",
      "native",
    ]);
    expect(await names(h, projectId, [attribute(service, "contains", "CHECK")])).toEqual([
      "a-client",
      "a-server",
      "native",
    ]);
    expect(await names(h, projectId, [attribute(service, "not-contains", "check")])).toEqual(["b-client"]);
    expect(await names(h, projectId, [attribute("otel.resource.service.instance", "gte", 7)])).toEqual([
      "a-client",
      "a-server",
    ]);
    expect(await names(h, projectId, [attribute("otel.resource.service.instance", "exists", false)])).toEqual([
      "b-client",
      "native",
    ]);
    expect(await names(h, projectId, [attribute("otel.scope.attributes.library.flavour", "exists", true)])).toEqual([
      "a-client",
      "a-server",
    ]);
    expect(await names(h, projectId, [attribute("otel.span.kind", "equals", "client")])).toEqual([
      "a-client",
      "b-client",
    ]);
    // With a span's own attribute (which drives the search) and an origin attribute together.
    expect(
      await names(h, projectId, [attribute("step", "equals", "a-server"), attribute(service, "equals", "checkout")]),
    ).toEqual(["a-server"]);
    expect(
      await names(h, projectId, [attribute(service, "equals", "checkout"), attribute("step", "equals", "a-server")]),
    ).toEqual(["a-server"]);

    const reply = await h.request("POST", "/logs/spans", {
      body: { projectId, filters: [attribute("step", "equals", "a-client")] },
    });
    expect(reply.body.spans[0].attributes).toEqual({
      step: "a-client",
      "otel.resource.service.name": "checkout",
      "otel.resource.service.instance": 7,
      "otel.scope.name": "tracer",
      "otel.scope.version": "2.0.0",
      "otel.scope.attributes.library.flavour": "sweet",
      "otel.span.kind": "client",
    });
  });

  it("indexes an origin once however many spans and requests share it; spans of other projects do not match", async () => {
    const h = use();
    const projectId = await seeded(h);
    const again = await sendOtlp(h, {
      projectId,
      body: request([
        {
          resource: { "service.instance": 7, "service.name": "checkout" },
          scope: { "library.flavour": "sweet" },
          spans: [{ kind: 3, name: "a-client-again" }],
        },
      ]),
    });
    expect(again.status).toBe(200);
    const origins = await h.store.db
      .selectFrom("logSpans")
      .select(({ fn }) => fn.count<number>("originId").distinct().as("count"))
      .where("projectId", "=", projectId)
      .executeTakeFirstOrThrow();
    // (checkout, client), (checkout, server), (search, client); the resource's keys in another order are the same.
    expect(Number(origins.count)).toBe(3);
    const rows = await h.store.db
      .selectFrom("logOriginAttributes")
      .select(({ fn }) => fn.countAll<number>().as("count"))
      .where("projectId", "=", projectId)
      .executeTakeFirstOrThrow();
    expect(Number(rows.count)).toBe(6 + 6 + 4);
    const other = await newProject(h);
    expect(await names(h, other, [attribute("otel.resource.service.name", "equals", "checkout")])).toEqual([]);
    expect(await names(h, projectId, [attribute("otel.resource.service.name", "equals", "checkout")])).toContain(
      "a-client-again",
    );
  });
});
