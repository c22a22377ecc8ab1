import { sql } from "kysely";
import { notFound } from "../../errors.ts";
import { inTransaction, type ServiceContext } from "../context.ts";
import { fromJson, toJson } from "../json.ts";
import type { PathOf } from "../operation-input.ts";
import { requireDataset, touchDataset } from "./dataset.ts";
import type { StoredValues } from "./row.ts";

/**
 * Deletes the column and its cell in every row (the rows and rowCount stay). Cells are removed by the
 * database's JSON functions, so rows do not travel to the server, except the few rows whose text those
 * functions cannot read (PostgreSQL's refuse an escaped NUL, which versions before requests were refused U+0000
 * stored): those are rewritten here.
 */
export function deleteDatasetColumn(
  ctx: ServiceContext,
  { datasetId, columnId }: PathOf<"deleteDatasetColumn">,
): Promise<void> {
  return inTransaction(ctx, async (tx) => {
    const dataset = await requireDataset(tx, datasetId, { forUpdate: true });
    const deleted = await tx.db
      .deleteFrom("datasetColumns")
      .where("id", "=", columnId)
      .where("datasetId", "=", dataset.id)
      .executeTakeFirst();
    if (deleted.numDeletedRows === 0n) throw notFound("Column");
    const now = tx.now();
    const values = sql.ref<string>("values");
    const rows = tx.db
      .updateTable("datasetRows")
      .set({ updatedAt: now })
      .where("datasetId", "=", dataset.id)
      .where("values", "like", `%"${columnId}"%`);

    const { json } = tx.store.sql;
    await rows
      .set({ values: json.withoutMember(values, columnId) })
      .where(json.readable(values))
      .where(json.hasMember(values, columnId))
      .execute();
    const unreadable = await tx.db
      .selectFrom("datasetRows")
      .select(["id", "values"])
      .where("datasetId", "=", dataset.id)
      .where("values", "like", `%"${columnId}"%`)
      .where(sql<boolean>`not (${json.readable(values)})`)
      .execute();
    for (const row of unreadable) {
      const cells = fromJson<StoredValues>(row.values);
      if (!Object.hasOwn(cells, columnId)) continue;
      delete cells[columnId];
      await tx.db
        .updateTable("datasetRows")
        .set({ values: toJson(cells), updatedAt: now })
        .where("id", "=", row.id)
        .execute();
    }
    await touchDataset(tx, dataset.id, now);
  });
}
