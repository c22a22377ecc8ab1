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
  // PL/pgSQL over an array of counts: 112 µs for a full histogram plus a small one, where a SQL function with
  // generate_series took 191 and the JSON one before 0024 153 (20,000 calls each, one session).
  await sql`
    create or replace function pharos_histogram_add(a text, b text) returns text
    language plpgsql immutable parallel safe as $$
    declare
      counts bigint[] := '{}';
      low int;
      high int;
      stored text;
      field text;
      bucket int;
      pair record;
      summed text;
    begin
      foreach stored in array array[a, b] loop
        if stored like '{%' then
          for pair in select key::int as bucket, value::bigint as count from jsonb_each_text(stored::jsonb) loop
            if pair.count <> 0 then
              counts[pair.bucket] := coalesce(counts[pair.bucket], 0) + pair.count;
              low := least(low, pair.bucket);
              high := greatest(high, pair.bucket);
            end if;
          end loop;
        elsif stored <> '' then
          bucket := split_part(stored, ':', 1)::int;
          foreach field in array string_to_array(split_part(stored, ':', 2), ',') loop
            if field <> '' then
              counts[bucket] := coalesce(counts[bucket], 0) + field::bigint;
              low := least(low, bucket);
              high := greatest(high, bucket);
            end if;
            bucket := bucket + 1;
          end loop;
        end if;
      end loop;
      if low is null then
        return '';
      end if;
      summed := low || ':';
      for bucket in low..high loop
        if bucket > low then
          summed := summed || ',';
        end if;
        if coalesce(counts[bucket], 0) <> 0 then
          summed := summed || counts[bucket];
        end if;
      end loop;
      return summed;
    end
    $$`.execute(db);
}
