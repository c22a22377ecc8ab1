import { type Migration, sql } from "kysely";
import type { Dialect } from "../dialect.ts";
import type { AnyDb } from "./any-db.ts";

/**
 * The attribute and tag side rows are keyed by the order searches read them in: (projectId, ownerKind,
 * key | tag, startedAt, ownerId). That key is as unique as the owner's (ownerKind, ownerId, key | tag), since
 * an owner has one project and one startedAt, and it serves both the searches (a key's owners in a time
 * range) and the lookups of one owner's row (PATCH, NOT EXISTS), which know the owner's project and
 * startedAt. On SQLite the tables are WITHOUT ROWID, clustered on that key: a side row is one b-tree entry
 * (plus the text-value index for text attributes) instead of a table row and two or three index entries.
 */
export const sideRowsBySearchKey: (dialect: Dialect) => Migration = (dialect) => ({
  async up(db: AnyDb) {
    const tables = [
      { table: "logAttributes", oldKey: "logAttributesKey", oldIndex: "logAttributesByKey", name: "key" },
      { table: "logTags", oldKey: "logTagsKey", oldIndex: "logTagsByTag", name: "tag" },
    ];
    for (const { table, oldKey, oldIndex, name } of tables) {
      const key = ["projectId", "ownerKind", name, "startedAt", "ownerId"];
      if (dialect === "postgres") {
        await db.schema.alterTable(table).dropConstraint(oldKey).execute();
        await db.schema.alterTable(table).addPrimaryKeyConstraint(`${table}Key`, key).execute();
        await db.schema.dropIndex(oldIndex).execute();
        continue;
      }
      // SQLite cannot change a table's key: a copy with the new one replaces the table.
      const rebuilt = `${table}Rebuilt`;
      let create = db.schema
        .createTable(rebuilt)
        .addColumn("projectId", "text", (c) => c.notNull())
        .addColumn("ownerKind", "text", (c) => c.notNull())
        .addColumn("ownerId", "text", (c) => c.notNull())
        .addColumn(name, "text", (c) => c.notNull());
      if (name === "key") {
        create = create
          .addColumn("textValue", "text")
          .addColumn("numberValue", "real")
          .addColumn("booleanValue", "integer");
      }
      await create
        .addColumn("startedAt", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint(`${table}Key`, key)
        .modifyEnd(sql`without rowid`)
        .execute();
      await sql`insert into ${sql.table(rebuilt)} select * from ${sql.table(table)}`.execute(db);
      await db.schema.dropTable(table).execute();
      await db.schema.alterTable(rebuilt).renameTo(table).execute();
    }
    if (dialect === "sqlite") {
      // Dropped with the old table.
      await db.schema
        .createIndex("logAttributesByTextValue")
        .on("logAttributes")
        .columns(["projectId", "ownerKind", "key", "textValue", "startedAt", "ownerId"])
        .where(sql.ref("textValue"), "is not", null)
        .execute();
    }
  },
});
