/**
 * A field added to an operation's query or body in the spec reaches its service's input type, and fails to
 * compile until the service reads it (operation-input.ts). Checked by type-checking the server against a copy
 * of the generated contract in which every query and every request body has gained an optional field.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { operations } from "@pharos/contract";
import { afterAll, expect, it } from "vitest";

const serverRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const contractRoot = resolve(serverRoot, "../../packages/contract");
// Inside the contract package, so that its copy resolves zod and Hono from the package's node_modules.
const work = join(contractRoot, "node_modules", ".cache", `added-field-${process.pid}`);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const ADDED = "addedToSpec";

/** The generated routes with `ADDED` in every query object and every JSON request body. */
function withAddedField(routes: string): { source: string; queries: number; bodies: number } {
  let queries = 0;
  let bodies = 0;
  const source = routes
    .replace(/query: z\.object\(\{/g, (match) => {
      queries += 1;
      return `${match} ${ADDED}: z.string().optional(),`;
    })
    .replace(/(body: \{\s*content: \{\s*'application\/json': \{\s*schema: )(\w+)/g, (_, prefix, schema) => {
      bodies += 1;
      return `${prefix}${schema}.extend({ ${ADDED}: z.string().optional() })`;
    });
  return { source, queries, bodies };
}

/**
 * Operations whose service does not take the contract's body, each with the reason (a field added to their
 * body is not theirs to read).
 */
const NOT_FROM_THE_BODY: Record<string, string> = {
  exportOtelTraces:
    "an OTLP request, protobuf or JSON, read by packages/otlp into one form for both encodings; its JSON schema " +
    "is open because OTLP receivers must ignore fields they do not know",
};

const kebab = (operationId: string) => operationId.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

it("fails to compile every service whose operation gains a query parameter or body field it does not read", () => {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  cpSync(join(contractRoot, "src"), join(work, "src"), { recursive: true });
  cpSync(join(contractRoot, "openapi.json"), join(work, "openapi.json"));
  const routesFile = join(work, "src", "generated", "routes.ts");
  const patched = withAddedField(readFileSync(routesFile, "utf8"));
  writeFileSync(routesFile, patched.source);

  const parts = (route: unknown) => (route as { request?: { query?: unknown; body?: unknown } }).request ?? {};
  const entries = Object.entries(operations);
  expect(patched.queries).toBe(entries.filter(([, route]) => parts(route).query !== undefined).length);
  // (The body of an operation in NOT_FROM_THE_BODY is not the first media type of its body: the pattern skips it.)
  expect(patched.bodies).toBe(
    entries.filter(([operationId, route]) => parts(route).body !== undefined && !(operationId in NOT_FROM_THE_BODY))
      .length,
  );
  const withInput = entries.filter(
    ([operationId, route]) =>
      !(operationId in NOT_FROM_THE_BODY) && (parts(route).query !== undefined || parts(route).body !== undefined),
  );

  const config = join(work, "tsconfig.json");
  writeFileSync(
    config,
    JSON.stringify({
      extends: join(serverRoot, "tsconfig.json"),
      compilerOptions: { paths: { "@pharos/contract": [join(work, "src", "index.ts")] } },
      include: [join(serverRoot, "src", "routes", "index.ts")],
    }),
  );
  let output = "";
  try {
    execFileSync(join(serverRoot, "node_modules", ".bin", "tsc"), ["-p", config, "--noEmit", "--pretty", "false"], {
      encoding: "utf8",
    });
  } catch (error) {
    output = (error as { stdout?: string }).stdout ?? "";
  }
  const errors = output.split("\n").filter((line) => /error TS\d+/.test(line));
  const files = [...new Set(errors.map((line) => line.slice(0, line.indexOf("("))))];
  const name = (file: string) => file.replace(/^.*\//, "").replace(/\.ts$/, "");

  // Every operation with a query or a body has its service among the failures …
  const services = files.filter((file) => file.startsWith("src/services/")).map(name);
  expect(services.sort(), errors.join("\n")).toEqual(withInput.map(([operationId]) => kebab(operationId)).sort());
  // … and nothing else fails but a route whose service did (its result type is then unknown).
  for (const file of files.filter((file) => !file.startsWith("src/services/"))) {
    expect(file).toMatch(/^src\/routes\//);
    expect(services).toContain(name(file));
  }
}, 120_000);
