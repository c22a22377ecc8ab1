import { sql } from "kysely";
import type { AnyDb } from "./any-db.ts";

/**
 * `pharos_histogram_add(a, b)` on PostgreSQL: the sum of two stored latency histograms, as stored (the compact
 * text of services/metrics/latency-histogram.ts, `low:count,,count`), what the rollup upserts add with. On
 * SQLite every connection registers the same function in JavaScript (store/sqlite.ts). It also reads the JSON
 * texts stored before migration 0024 (`{"bucket":count}`), which is how 0024 converts them, and so that the
 * backfills of migrations 0013 and 0021, which write the compact texts of today's code, can add them to rows of
 * either kind: each creates this function (the latest definition) before writing.
 */
export async function createHistogramAdd(db: AnyDb): Promise<void> {
  await sql`
    create or replace function pharos_histogram_add(a text, b text) returns text
    language sql immutable parallel safe as $$
      with parts as (
        select json.key::int as bucket, json.value::bigint as count
        from unnest(array[a, b]) as stored(text)
        cross join lateral jsonb_each_text(case when stored.text like '{%' then stored.text::jsonb end) as json
        union all
        select split_part(stored.text, ':', 1)::int + field.ordinal::int - 1, field.count::bigint
        from unnest(array[a, b]) as stored(text)
        cross join lateral unnest(string_to_array(
          case when stored.text not like '{%' then split_part(stored.text, ':', 2) end, ','
        )) with ordinality as field(count, ordinal)
        where field.count <> ''
      ),
      counts as (select bucket, sum(count) as total from parts group by bucket having sum(count) <> 0),
      range as (select min(bucket) as low, max(bucket) as high from counts)
      select coalesce((
        select range.low || ':' || string_agg(coalesce(counts.total::text, ''), ',' order by bucket.at)
        from range
        cross join generate_series(range.low, range.high) as bucket(at)
        left join counts on counts.bucket = bucket.at
        group by range.low
      ), '')
    $$`.execute(db);
}
