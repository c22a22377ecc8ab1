import { type Migration, sql } from "kysely";
import type { Dialect } from "../dialect.ts";
import type { AnyDb } from "./any-db.ts";

export const logSearch: (dialect: Dialect) => Migration = (dialect) => ({
  async up(db: AnyDb) {
    // Lists the owners of one text attribute value in the keyset order (startedAt, id), so that a search
    // filtered on it walks only matching owners and stops at the page's end, whatever the value's share.
    await db.schema
      .createIndex("logAttributesByTextValue")
      .on("logAttributes")
      .columns(["projectId", "ownerKind", "key", "textValue", "startedAt", "ownerId"])
      .execute();
    if (dialect === "postgres") {
      // Without statistics of lower(name), PostgreSQL takes a name substring to match 0.5% of the rows, finds
      // a page's worth of rows too few to be worth walking an index in order, and sorts the whole time range
      // instead. ANALYZE fills these in (no index, so no cost to writes).
      for (const table of ["logTraces", "logSpans"]) {
        await sql`create statistics ${sql.id(`${table}LowerName`)} on (lower(name)) from ${sql.table(table)}`.execute(
          db,
        );
      }
    }
  },
});
