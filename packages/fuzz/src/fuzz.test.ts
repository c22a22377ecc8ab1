/**
 * The fuzzing suite: every operation of the spec, on SQLite and (with PHAROS_TEST_DATABASE_URL) PostgreSQL,
 * must answer every case without a 5xx, with a declared status and a body valid against the spec, and refuse
 * without storing anything. README.md says what is generated and how to replay a failure.
 */
import { afterAll, beforeAll, describe, it } from "vitest";
import { databases, fuzzConfig } from "./config.ts";
import { fingerprinter } from "./fingerprint.ts";
import { type FuzzWorld, fuzzOperation } from "./fuzz-operation.ts";
import { operationShapes } from "./spec.ts";
import { openWorld } from "./world.ts";

const config = fuzzConfig();
const selected = operationShapes.filter(
  (shape) => config.operations.size === 0 || config.operations.has(shape.operationId),
);
if (selected.length === 0) throw new Error(`PHAROS_FUZZ_OPERATIONS names no operation of the spec`);

for (const database of databases(config)) {
  describe(`fuzzing every operation on ${database.name} (seed ${config.seed})`, () => {
    let world: FuzzWorld | undefined;
    const answered: string[] = [];
    let requests = 0;
    let started = 0;
    beforeAll(async () => {
      started = Date.now();
      const opened = await openWorld(database.url);
      world = Object.assign(opened, { fingerprint: await fingerprinter(opened.store) });
    });
    afterAll(async () => {
      await world?.close();
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.info(`Fuzzing on ${database.name}: ${requests} requests in ${seconds} s\n${answered.join("\n")}`);
    });

    for (const shape of selected) {
      it(`${shape.operationId}: ${shape.method} ${shape.path}`, async () => {
        if (!world) throw new Error("the world did not open");
        const statuses = await fuzzOperation(world, shape, { ...config, runs: database.runs });
        const counts = [...statuses].sort(([a], [b]) => a - b);
        requests += counts.reduce((sum, [, count]) => sum + count, 0);
        answered.push(`  ${shape.operationId}: ${counts.map(([status, count]) => `${status}×${count}`).join(" ")}`);
      });
    }
  });
}
