import { describe, expect, it } from "vitest";
import type { Schemas } from "../api.ts";
import { conversation, parseSessionsSearch } from "./sessions.ts";

type Trace = Schemas["LogTrace"];
type Span = Schemas["LogSpan"];

const trace = (id: string, startedAt: number) => ({ id, name: id, startedAt }) as Trace;
const text = (value: string) => [{ modality: "text", value }];
const modelSpan = (id: string, logTraceId: string, startedAt: number, question: string, answer: string) =>
  ({
    id,
    logTraceId,
    startedAt,
    contentType: "Model",
    parsedContent: {
      type: "Model",
      input: JSON.stringify({
        messages: [
          { role: "system", content: text("Be brief.") },
          { role: "user", content: text("earlier question") },
          { role: "assistant", content: text("earlier answer") },
          { role: "user", content: text(question) },
        ],
      }),
      output: JSON.stringify({ messages: [{ role: "assistant", content: text(answer) }] }),
    },
  }) as unknown as Span;

describe("sessions", () => {
  it("reads tab and sort from the URL, dropping unknown values", () => {
    expect(parseSessionsSearch({ tab: "users", sort: "cost:desc" })).toEqual({ tab: "users", sort: "cost:desc" });
    expect(parseSessionsSearch({ tab: "groups", sort: "name:asc" })).toEqual({});
  });

  it("makes one turn per trace, in the traces' order: the last user message asked and the last Model span's answer", () => {
    const traces = [trace("t1", 1000), trace("t2", 2000)];
    const spans = [
      modelSpan("s3", "t2", 2100, "And the refund?", "Refunded."),
      modelSpan("s1", "t1", 1100, "Where is my order?", "draft answer"),
      modelSpan("s2", "t1", 1500, "ignored: not the first span", "It ships tomorrow."),
      { id: "tool", logTraceId: "t1", startedAt: 1200, contentType: "Tool", parsedContent: { type: "Tool" } } as Span,
    ];
    const turns = conversation(traces, spans);
    expect(turns.map((turn) => turn.trace.id)).toEqual(["t1", "t2"]);
    expect(turns[0]?.question).toEqual({ role: "user", parts: [{ kind: "text", text: "Where is my order?" }] });
    expect(turns[0]?.answer).toEqual([{ role: "assistant", parts: [{ kind: "text", text: "It ships tomorrow." }] }]);
    expect(turns[0]?.answerSpanId).toBe("s2");
    expect(turns[1]?.answer[0]?.parts).toEqual([{ kind: "text", text: "Refunded." }]);
  });

  it("leaves a turn without messages when its trace has no readable Model span", () => {
    const [turn] = conversation([trace("t1", 1000)], []);
    expect(turn).toEqual({ trace: trace("t1", 1000), question: undefined, answer: [], answerSpanId: undefined });
  });
});
