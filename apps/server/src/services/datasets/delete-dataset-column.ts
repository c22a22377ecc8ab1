import { sql } from "kysely";
import { notFound } from "../../errors.ts";
import { inTransaction, type ServiceContext } from "../context.ts";
import { fromJson, toJson } from "../json.ts";
import { requireDataset, touchDataset } from "./dataset.ts";
import type { StoredValues } from "./row.ts";

/** A NUL character as JSON.stringify writes it; PostgreSQL's json and jsonb refuse any document holding it. */
const ESCAPED_NUL = "\\u0000";

/**
 * Deletes the column and its cell in every row (the rows and rowCount stay). Cells are removed by the
 * database's JSON functions, so rows do not travel to the server, except on PostgreSQL the few rows whose
 * text holds an escaped NUL, which its JSON types cannot read: those are rewritten here.
 */
export function deleteDatasetColumn(ctx: ServiceContext, datasetId: string, columnId: string): Promise<void> {
  return inTransaction(ctx, async (tx) => {
    const dataset = await requireDataset(tx, datasetId, { forUpdate: true });
    const deleted = await tx.db
      .deleteFrom("datasetColumns")
      .where("id", "=", columnId)
      .where("datasetId", "=", dataset.id)
      .executeTakeFirst();
    if (deleted.numDeletedRows === 0n) throw notFound("Column");
    const now = tx.now();
    const values = sql.ref("values");
    const rows = tx.db
      .updateTable("datasetRows")
      .set({ updatedAt: now })
      .where("datasetId", "=", dataset.id)
      .where("values", "like", `%"${columnId}"%`);

    if (tx.store.dialect === "sqlite") {
      const path = `$."${columnId}"`;
      await rows
        .set({ values: sql<string>`json_remove(${values}, ${path})` })
        .where(sql<boolean>`json_type(${values}, ${path}) is not null`)
        .execute();
    } else {
      await rows
        .set({ values: sql<string>`(${values}::jsonb - ${columnId})::text` })
        .where(sql<boolean>`strpos(${values}, ${ESCAPED_NUL}) = 0`)
        .where(sql<boolean>`(${values}::jsonb -> ${columnId}) is not null`)
        .execute();
      const withNul = await tx.db
        .selectFrom("datasetRows")
        .select(["id", "values"])
        .where("datasetId", "=", dataset.id)
        .where("values", "like", `%"${columnId}"%`)
        .where(sql<boolean>`strpos(${values}, ${ESCAPED_NUL}) > 0`)
        .execute();
      for (const row of withNul) {
        const cells = fromJson<StoredValues>(row.values);
        if (!Object.hasOwn(cells, columnId)) continue;
        delete cells[columnId];
        await tx.db
          .updateTable("datasetRows")
          .set({ values: toJson(cells), updatedAt: now })
          .where("id", "=", row.id)
          .execute();
      }
    }
    await touchDataset(tx, dataset.id, now);
  });
}
