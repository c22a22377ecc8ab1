/**
 * Sessions and users as the console reads them: the list's choices in the URL (tab, sort), and a session's
 * traces turned into a conversation, each turn the user's message and the answer of the trace's Model spans.
 * Kept free of React so it is tested on its own.
 */
import type { paths } from "@pharos/contract/types";
import type { Schemas } from "../api.ts";
import { type ChatMessage, readableContent } from "../traces/span-content.ts";

export type LogGroupSort = NonNullable<
  NonNullable<paths["/projects/{projectId}/sessions"]["get"]["parameters"]["query"]>["sort"]
>;

export const SORTS: readonly { id: LogGroupSort; label: string }[] = [
  { id: "lastSeenAt:desc", label: "Last seen, newest first" },
  { id: "lastSeenAt:asc", label: "Last seen, oldest first" },
  { id: "cost:desc", label: "Cost, highest first" },
  { id: "cost:asc", label: "Cost, lowest first" },
];

export type SessionsTab = "sessions" | "users";

export interface SessionsSearch {
  /** The users' tab; the sessions' when absent. */
  tab?: "users";
  sort?: LogGroupSort;
}

/** Reads the list's choices from the URL, dropping what is unknown (the defaults apply). */
export function parseSessionsSearch(search: Record<string, unknown>): SessionsSearch {
  const sort = SORTS.find((candidate) => candidate.id === search.sort)?.id;
  return { ...(search.tab === "users" && { tab: "users" as const }), ...(sort && { sort }) };
}

type Trace = Schemas["LogTrace"];
type Span = Schemas["LogSpan"];

export interface Turn {
  trace: Trace;
  /** The last user message the trace's first Model span was sent. */
  question: ChatMessage | undefined;
  /** What the trace's last Model span answered. */
  answer: ChatMessage[];
  /** The span the answer comes from, to open in the trace view. */
  answerSpanId: string | undefined;
}

/** One turn per trace, in the traces' order, from the Model spans among `spans` (of any trace). */
export function conversation(traces: readonly Trace[], spans: readonly Span[]): Turn[] {
  const modelSpans = new Map<string, Span[]>();
  for (const span of spans) {
    if (span.contentType !== "Model" && span.contentType !== "ModelStream") continue;
    const list = modelSpans.get(span.logTraceId) ?? [];
    list.push(span);
    modelSpans.set(span.logTraceId, list);
  }
  return traces.map((trace) => {
    const ordered = (modelSpans.get(trace.id) ?? []).sort((a, b) => a.startedAt - b.startedAt);
    const first = ordered[0] && readableContent(ordered[0].parsedContent);
    const lastSpan = ordered.at(-1);
    const last = lastSpan && readableContent(lastSpan.parsedContent);
    return {
      trace,
      question: first?.kind === "chat" ? first.input.findLast((message) => message.role === "user") : undefined,
      answer: last?.kind === "chat" ? last.output : [],
      answerSpanId: lastSpan?.id,
    };
  });
}
