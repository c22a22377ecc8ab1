/**
 * Dataset rows made from logged spans (issue 17, "datasets from logs"): one row per span, its `variables` in the
 * columns of the same name, its output (and input) text in the columns the request names. Columns are never
 * created: every missing one is reported at once, and nothing is written.
 */
import { type ErrorDetail, failIfInvalid, invalid, notFound } from "../../errors.ts";
import { inTransaction, type ServiceContext } from "../context.ts";
import { toJson } from "../json.ts";
import { type LogSpan, toLogSpan } from "../logs/search-items.ts";
import { logSpanPages } from "../logs/search-log-spans.ts";
import type { BodyOf, PathOf, Unread } from "../operation-input.ts";
import { loadColumns } from "./column.ts";
import { requireDataset } from "./dataset.ts";
import { type DatasetRow, type StoredValues, toRow } from "./row.ts";

/** The longest string a dataset cell holds (DatasetCellValue). */
const MAX_CELL_LENGTH = 100_000;

/**
 * The text of a span's `input` or `output`: the text parts of the messages of a Model span's platform form
 * (`{"messages": [...]}`), joined by blank lines; otherwise the stored text as it is.
 */
export function spanText(content: LogSpan["parsedContent"], part: "input" | "output"): string | null {
  const raw = (content as Record<string, unknown>)[part];
  if (typeof raw !== "string") return null;
  if (content.type !== "Model" && content.type !== "ModelStream") return raw;
  try {
    const parsed = JSON.parse(raw) as { messages?: unknown };
    if (!Array.isArray(parsed.messages)) return raw;
    const messages = parsed.messages as { role?: string; content?: { modality?: string; value?: unknown }[] }[];
    const wanted = part === "output" ? messages.filter((message) => message.role === "assistant") : messages;
    return wanted
      .flatMap((message) => (Array.isArray(message.content) ? message.content : []))
      .filter((item) => item.modality === "text" && typeof item.value === "string")
      .map((item) => item.value as string)
      .join("\n\n");
  } catch {
    return raw;
  }
}

function variablesOf(content: LogSpan["parsedContent"]): Record<string, string> {
  const variables = (content as { variables?: Record<string, { value: string }> }).variables ?? {};
  return Object.fromEntries(Object.entries(variables).map(([name, variable]) => [name, variable.value]));
}

/** The spans named, in the request's order, each of the dataset's project (404 for any other id). */
async function spansById(ctx: ServiceContext, projectId: string, spanIds: readonly string[]): Promise<LogSpan[]> {
  if (new Set(spanIds).size !== spanIds.length) throw invalid("spanIds", "A span id appears more than once.");
  const rows = await ctx.db
    .selectFrom("logSpans")
    .selectAll()
    .where("workspaceId", "=", ctx.principal.workspaceId)
    .where("projectId", "=", projectId)
    .where("id", "in", spanIds)
    .execute();
  // Rows read a span's content only, never its scores.
  const byId = new Map(rows.map((row) => [row.id, toLogSpan(row, [])]));
  return spanIds.map((id) => {
    const span = byId.get(id);
    if (!span) throw notFound(`Span ${id}`);
    return span;
  });
}

export function createDatasetRowsFromSpans(
  ctx: ServiceContext,
  { datasetId }: PathOf<"createDatasetRowsFromSpans">,
  body: BodyOf<"createDatasetRowsFromSpans">,
): Promise<DatasetRow[]> {
  const { spanIds, search, maxRows = 100, outputColumn, inputColumn, ...unread } = body;
  unread satisfies Unread;
  if ((spanIds === undefined) === (search === undefined)) {
    throw invalid("spanIds", "Give exactly one of spanIds and search.");
  }
  return inTransaction(ctx, async (tx) => {
    const dataset = await requireDataset(tx, datasetId, { forUpdate: true });
    let spans: LogSpan[];
    if (search !== undefined) {
      if (search.projectId !== dataset.projectId) {
        throw invalid("search.projectId", "The search must be of the dataset's project.");
      }
      const { limit: _limit, cursor: _cursor, ...criteria } = search;
      spans = (await (await logSpanPages(tx, criteria))({ limit: maxRows })).items;
    } else {
      spans = await spansById(tx, dataset.projectId, spanIds ?? []);
    }

    const columns = await loadColumns(tx, dataset.id);
    const columnIdByName = new Map(columns.map((column) => [column.name, column.id]));
    const problems: ErrorDetail[] = [];
    const missing = new Set<string>();
    const requireColumn = (name: string, field: string) => {
      const id = columnIdByName.get(name);
      if (id === undefined && !missing.has(name)) {
        missing.add(name);
        problems.push({ field, issue: `The dataset has no column "${name}".` });
      }
      return id;
    };
    const outputColumnId = outputColumn === undefined ? undefined : requireColumn(outputColumn, "outputColumn");
    const inputColumnId = inputColumn === undefined ? undefined : requireColumn(inputColumn, "inputColumn");
    const valuesOfSpans = spans.map((span) => {
      const values: StoredValues = {};
      const put = (columnId: string | undefined, value: string | null, what: string) => {
        if (columnId === undefined || value === null || value === "") return;
        if (value.length > MAX_CELL_LENGTH) {
          problems.push({ field: `spans.${span.id}`, issue: `Its ${what} is over ${MAX_CELL_LENGTH} characters.` });
        }
        values[columnId] = value;
      };
      for (const [name, value] of Object.entries(variablesOf(span.parsedContent))) {
        put(requireColumn(name, `columns.${name}`), value, `variable "${name}"`);
      }
      put(outputColumnId, spanText(span.parsedContent, "output"), "output");
      put(inputColumnId, spanText(span.parsedContent, "input"), "input");
      return { spanId: span.id, values };
    });
    failIfInvalid(problems);
    if (valuesOfSpans.length === 0) return [];

    const now = tx.now();
    const rows = valuesOfSpans.map(({ spanId, values }) => ({
      id: tx.newId("row"),
      datasetId: dataset.id,
      values: toJson(values),
      createdAt: now,
      updatedAt: now,
      sourceSpanId: spanId,
    }));
    await tx.db.insertInto("datasetRows").values(rows).execute();
    await tx.db
      .updateTable("datasets")
      .set((eb) => ({ rowCount: eb("rowCount", "+", rows.length), updatedAt: now }))
      .where("id", "=", dataset.id)
      .execute();
    const columnIds = columns.map((column) => column.id);
    return rows.map((row) => toRow(row, columnIds));
  });
}
