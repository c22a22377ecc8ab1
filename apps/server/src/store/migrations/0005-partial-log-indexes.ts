import { type Migration, sql } from "kysely";
import type { AnyDb } from "./any-db.ts";

/**
 * The indexes of optional log columns hold only the rows that have a value. Every search on such a column
 * compares it with a value, which implies `is not null`, so both databases still use them; a write of a row
 * without the value skips the index altogether (most spans have no prompt, session or reference: four of a
 * span's eight index entries).
 */
export const partialLogIndexes: Migration = {
  async up(db: AnyDb) {
    const indexes: [name: string, table: string, columns: string[], unique: boolean][] = [
      ["logTracesBySession", "logTraces", ["projectId", "sessionId", "startedAt", "id"], false],
      ["logTracesUniqueReference", "logTraces", ["projectId", "referenceId"], true],
      ["logSpansByPrompt", "logSpans", ["projectId", "promptId", "startedAt", "id"], false],
      ["logSpansBySession", "logSpans", ["projectId", "sessionId", "startedAt", "id"], false],
      ["logSpansByReference", "logSpans", ["projectId", "referenceId", "startedAt", "id"], false],
      ["logSpansUniqueReference", "logSpans", ["traceId", "referenceId"], true],
      [
        "logAttributesByTextValue",
        "logAttributes",
        ["projectId", "ownerKind", "key", "textValue", "startedAt", "ownerId"],
        false,
      ],
    ];
    for (const [name, table, columns, unique] of indexes) {
      const optional = columns.find((column) => ["sessionId", "referenceId", "promptId", "textValue"].includes(column));
      await db.schema.dropIndex(name).execute();
      const index = db.schema.createIndex(name).on(table).columns(columns);
      await (unique ? index.unique() : index).where(sql.ref(optional as string), "is not", null).execute();
    }
  },
};
