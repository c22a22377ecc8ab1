/**
 * What the logs benchmark runs against, set up: the two ceiling servers, and per database the real server with a
 * bootstrap key, the seeded search project, a deployed prompt and each scenario's load job — or, from a probe
 * request, why the scenario cannot run — each warmed up once.
 */
import type { components } from "@pharos/contract";
import { createIdGenerator, openStore } from "@pharos/server";
import pg from "pg";
import { issueKey } from "../../apps/server/src/auth/api-keys.ts";
import type { ExportRequest } from "./export.ts";
import type { LoadJob } from "./load.ts";
import { LOG_LEVEL, POSTGRES_URL, SEED_SPANS, WARMUP_SECONDS } from "./options.ts";
import { otlpBodyTemplate, traceBodyTemplate } from "./payload.ts";
import { type LoadGenerator, rssMb, type ServerHandle, startCeiling, startPharos } from "./processes.ts";
import type { RetentionRequest } from "./retention.ts";
import {
  ceilingScenarios,
  LIMITER_SCENARIOS,
  MASKING_RULES,
  PAGE,
  type Scenario,
  storeScenarios,
} from "./scenarios.ts";
import { type SeedResult, seedSpans } from "./seed.ts";
import { analyzePostgres, type Database, postgresDatabase, type StoreName, sqliteDatabase } from "./targets.ts";

const UNLIMITED = "999999999";

/**
 * The rate limits of a run's servers: above what the bench sends in a minute. On PostgreSQL they are also low
 * enough that the shared limiter takes batches as often as at the default limits under load (a few a second,
 * each covering ~200 ms of traffic, ADR 0009); at 999,999,999 a minute its smallest batch, a thousandth of the
 * limit, would be a million requests and it would hardly ever ask the database.
 */
const limitsFor = (store: StoreName) => ({
  PHAROS_RATE_LIMIT_LOG_TRACES: store === "postgres" ? "120000" : UNLIMITED,
  PHAROS_RATE_LIMIT_LOG_SPANS: store === "postgres" ? "120000" : UNLIMITED,
  PHAROS_RATE_LIMIT_DEPLOYMENTS: store === "postgres" ? "600000" : UNLIMITED,
  PHAROS_RATE_LIMIT_OTHER: UNLIMITED,
});

type Schemas = components["schemas"];

// ---------------------------------------------------------------------------------------------------------
// Talking to a server

interface Reply {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

async function call(base: string, key: string, method: string, path: string, body?: unknown): Promise<Reply> {
  for (let attempt = 1; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(`${base}/v2${path}`, {
        method,
        headers: { Authorization: `Bearer ${key}`, ...(body !== undefined && { "Content-Type": "application/json" }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(120_000),
      });
    } catch (error) {
      // A keep-alive connection the server closed as it was reused: try again, twice.
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      if (attempt < 3 && (error as Error).name !== "TimeoutError") continue;
      throw new Error(
        `${method} ${path}: ${(error as Error).message} (${cause?.code ?? cause?.message ?? "no cause"})`,
      );
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  }
}

async function must<T>(reply: Promise<Reply>, what: string): Promise<T> {
  const { status, text, body } = await reply;
  if (status < 200 || status > 299) throw new Error(`${what}: ${status} ${text.slice(0, 300)}`);
  return body as T;
}

/** Why a probe says an operation cannot be measured, or undefined when it answered 2xx. */
function unavailable(reply: Reply): string | undefined {
  if (reply.status >= 200 && reply.status <= 299) return undefined;
  const error = (reply.body as { error?: Schemas["Error"]["error"] } | undefined)?.error;
  if (reply.status === 404 && error?.message === "No such operation.") return "not available";
  return `not available (probe: ${reply.status} ${error?.code ?? reply.text.slice(0, 80)})`;
}

// ---------------------------------------------------------------------------------------------------------
// Setting up

/** One server under test, set up and probed. */
export interface StoreRun {
  store: StoreName;
  database: Database;
  server: ServerHandle;
  /** scenario id → the job, or the reason it cannot run. */
  jobs: Map<string, LoadJob | string>;
  seed?: SeedResult;
  /** The server's RSS right after it started listening, MB. */
  idleRss: number;
  /** Which page the "page 50" rows reached (fewer when the seed has fewer matches). */
  pages: { traces?: number; spans?: number };
  /**
   * PostgreSQL: a second server on the same database counting rate limits in its own memory
   * (PHAROS_RATE_LIMIT_SCOPE=process), and the jobs of LIMITER_SCENARIOS against it, to compare with the
   * first server's shared limits.
   */
  processScope?: { server: ServerHandle; jobs: Map<string, LoadJob> };
  /** The project seeded for (c) and (f), which the metrics rows (metrics.ts) query too. */
  searchProjectId?: string;
  /** (f) The export of every seeded span (export.ts), unless the seeded project cannot be searched. */
  exportRequest?: ExportRequest;
  /** (h) Retention over the seeded project (retention.ts), when it was seeded. */
  retentionRequest?: RetentionRequest;
}

/** Follows cursors from page 1 to page `page` (or the last page); returns the body of that page's request. */
async function bodyOfPage(
  server: ServerHandle,
  key: string,
  path: string,
  query: Record<string, unknown>,
  page: number,
): Promise<{ body: Record<string, unknown>; page: number }> {
  let body: Record<string, unknown> = { ...query };
  for (let reached = 1; reached < page; reached++) {
    const reply = await must<Schemas["LogTraceList"]>(
      call(server.url, key, "POST", path, body),
      `${path} page ${reached}`,
    );
    if (!reply.pagination?.hasMore) return { body, page: reached };
    body = { ...query, cursor: reply.pagination.nextCursor };
  }
  return { body, page };
}

/** The ceiling servers (a) and (v), started and warmed up. */
export interface Ceilings {
  bare: ServerHandle;
  validate: ServerHandle;
  /** Their RSS right after they started listening, MB. */
  idleRss: { bare: number; validate: number };
  /** The write payload (v) validates. */
  template: ReturnType<typeof traceBodyTemplate>;
  job(scenario: Scenario): LoadJob;
}

/** `onCleanup` gets each server's stop as soon as it runs, so a later failure still stops it. */
export async function setUpCeilings(
  logDir: string,
  load: LoadGenerator,
  onCleanup: (cleanup: () => Promise<void>) => void,
): Promise<Ceilings> {
  const bare = await startCeiling("bare", logDir);
  onCleanup(() => bare.stop());
  const validate = await startCeiling("validate", logDir);
  onCleanup(() => validate.stop());
  const idleRss = { bare: rssMb(bare.pid), validate: rssMb(validate.pid) };

  const template = traceBodyTemplate("project_01JD8Q4KZ8T6V2M3N4P5Q6R7S8", Date.now() - 60_000);
  const job = (scenario: Scenario): LoadJob =>
    scenario.kind === "ceiling-a"
      ? {
          url: bare.url,
          method: "GET",
          path: "/bare",
          headers: {},
          connections: scenario.connections,
          durationSeconds: scenario.seconds,
        }
      : {
          url: validate.url,
          method: "POST",
          path: "/v2/logs/trace",
          headers: { "Content-Type": "application/json" },
          template,
          connections: scenario.connections,
          durationSeconds: scenario.seconds,
        };
  for (const scenario of ceilingScenarios) await load.run({ ...job(scenario), durationSeconds: WARMUP_SECONDS });
  return { bare, validate, idleRss, template, job };
}

/** The server on a fresh database of `store`, its scenarios probed and warmed up; or why the database is missing. */
export async function setUpStore(
  store: StoreName,
  logDir: string,
  load: LoadGenerator,
  log: (message: string) => void,
): Promise<StoreRun | string> {
  let database: Database;
  try {
    database = store === "sqlite" ? sqliteDatabase(logDir) : await postgresDatabase(POSTGRES_URL);
  } catch (error) {
    const where = POSTGRES_URL.replace(/:[^:@/]*@/, ":***@");
    log(`postgres: cannot create a database through ${where}: ${(error as Error).message}`);
    return `not available (no PostgreSQL at ${new URL(POSTGRES_URL).host})`;
  }
  const key = issueKey(createIdGenerator(Date.now)("apiKey")).key;
  let server: ServerHandle;
  try {
    server = await startPharos(
      `pharos-${store}`,
      {
        DATABASE_URL: database.url,
        PHAROS_BOOTSTRAP_API_KEY: key,
        ...limitsFor(store),
        LOG_LEVEL,
      },
      logDir,
    );
  } catch (error) {
    await database.dispose().catch(() => {});
    throw error;
  }
  const run: StoreRun = { store, database, server, jobs: new Map(), pages: {}, idleRss: rssMb(server.pid) };
  const auth = { Authorization: `Bearer ${key}`, "Content-Type": "application/json" };

  // The bootstrap project takes the writes; a second project holds the seeded spans.
  const projects = await must<Schemas["ProjectList"]>(call(server.url, key, "GET", "/projects"), "list projects");
  const ingestProjectId = (projects.projects[0] as Schemas["Project"]).id;
  const searchProject = await must<Schemas["Project"]>(
    call(server.url, key, "POST", "/projects", { title: "Search" }),
    "create project",
  );

  // (b) writes
  const template = traceBodyTemplate(ingestProjectId, Date.now() - 60_000);
  const probe = await call(
    server.url,
    key,
    "POST",
    "/logs/trace",
    JSON.parse(`${template.prefix}probe${template.suffix}`),
  );
  const writeProblem = unavailable(probe);
  // (g) a project with masking rules takes the masked writes
  const maskedProject = await must<Schemas["Project"]>(
    call(server.url, key, "POST", "/projects", { title: "Masked" }),
    "create project",
  );
  const masking = await call(server.url, key, "PATCH", `/projects/${maskedProject.id}`, {
    maskingRules: MASKING_RULES,
  });
  const maskingProblem = unavailable(masking);
  const maskedTemplate = traceBodyTemplate(maskedProject.id, Date.now() - 60_000);
  for (const scenario of storeScenarios.filter((s) => s.kind === "write")) {
    run.jobs.set(
      scenario.id,
      writeProblem ??
        (scenario.masked ? maskingProblem : undefined) ?? {
          url: server.url,
          method: "POST",
          path: "/v2/logs/trace",
          headers: auth,
          template: scenario.masked ? maskedTemplate : template,
          connections: scenario.connections,
          durationSeconds: scenario.seconds,
          ...(scenario.rate && { overallRate: scenario.rate }),
        },
    );
  }

  // (e) the same writes as OTLP protobuf, into the same project (the header names it)
  const otlp = otlpBodyTemplate(Date.now() - 60_000);
  const otlpHeaders = {
    Authorization: `Bearer ${key}`,
    "Content-Type": "application/x-protobuf",
    "x-pharos-project-id": ingestProjectId,
  };
  const otlpProbe = await fetch(`${server.url}/v2/otel/v1/traces`, {
    method: "POST",
    headers: otlpHeaders,
    body: Buffer.from(otlp.base64, "base64"),
  });
  const otlpText = await otlpProbe.text();
  const otlpProblem =
    otlpProbe.status === 200
      ? undefined
      : `not available (probe: ${otlpProbe.status} ${otlpText.slice(0, 80).replace(/[^\x20-\x7e]/g, "?")})`;
  for (const scenario of storeScenarios.filter((s) => s.kind === "otlp")) {
    run.jobs.set(
      scenario.id,
      otlpProblem ?? {
        url: server.url,
        method: "POST",
        path: "/v2/otel/v1/traces",
        headers: otlpHeaders,
        binaryTemplate: otlp,
        connections: scenario.connections,
        durationSeconds: scenario.seconds,
      },
    );
  }

  // (c) search over the seeded project
  const searchProblems = {
    traces: unavailable(await call(server.url, key, "POST", "/logs/traces", { projectId: searchProject.id })),
    spans: unavailable(await call(server.url, key, "POST", "/logs/spans", { projectId: searchProject.id })),
  };
  if (!searchProblems.traces || !searchProblems.spans) {
    log(`${store}: seeding ${SEED_SPANS.toLocaleString("en")} spans`);
    const seeding = openStore(database.url);
    let shown = 0;
    try {
      run.seed = await seedSpans(seeding, {
        projectId: searchProject.id,
        spans: SEED_SPANS,
        onProgress: (written) => {
          if (written - shown >= 100_000 || written === SEED_SPANS) {
            shown = written;
            log(`${store}: ${written.toLocaleString("en")} spans seeded`);
          }
        },
      });
    } finally {
      await seeding.close();
    }
    if (store === "postgres") await analyzePostgres(database.url);
    log(`${store}: seeded in ${run.seed.seconds.toFixed(1)} s`);
  }
  run.searchProjectId = searchProject.id;
  if (!searchProblems.spans) run.exportRequest = { url: server.url, key, body: { projectId: searchProject.id } };
  if (run.seed) {
    const { from } = run.seed;
    run.retentionRequest = { url: server.url, key, databaseUrl: database.url, projectId: searchProject.id, from };
  }
  const from = run.seed?.from ?? Date.now();
  const window = { startedAfter: from + 4 * 86_400_000, startedBefore: from + 25 * 86_400_000 };
  const planFilter = [{ column: "attributes", key: "user.plan", operator: "equals", value: "pro" }];
  const queries = {
    traces: { projectId: searchProject.id, ...window, name: "chat", filters: planFilter },
    spans: { projectId: searchProject.id, ...window, name: "llm", filters: planFilter },
  };
  for (const what of ["traces", "spans"] as const) {
    const path = `/logs/${what}`;
    const problem = searchProblems[what];
    const job = (body: Record<string, unknown>, scenario: Scenario): LoadJob => ({
      url: server.url,
      method: "POST",
      path: `/v2${path}`,
      headers: auth,
      body: JSON.stringify(body),
      connections: scenario.connections,
      durationSeconds: scenario.seconds,
    });
    const first = storeScenarios.find((s) => s.id === `c.${what}.p1`) as Scenario;
    const nth = storeScenarios.find((s) => s.id === `c.${what}.pN`) as Scenario;
    if (problem) {
      run.jobs.set(first.id, problem);
      run.jobs.set(nth.id, problem);
      continue;
    }
    try {
      await must(call(server.url, key, "POST", path, queries[what]), `${path} page 1`);
      run.jobs.set(first.id, job(queries[what], first));
      const { body, page } = await bodyOfPage(server, key, path, queries[what], PAGE);
      run.pages[what] = page;
      run.jobs.set(nth.id, job(body, nth));
    } catch (error) {
      const reason = `failed (${(error as Error).message.slice(0, 120)})`;
      if (!run.jobs.has(first.id)) run.jobs.set(first.id, reason);
      run.jobs.set(nth.id, reason);
    }
  }

  // (d) deployments
  const environment = await must<Schemas["DeploymentEnvironment"]>(
    call(server.url, key, "POST", `/projects/${ingestProjectId}/deployment-environments`, { name: "Production" }),
    "create environment",
  );
  const prompt = await must<Schemas["Prompt"]>(
    call(server.url, key, "POST", "/prompts", {
      projectId: ingestProjectId,
      title: "Order status answer",
      draft: {
        config: { provider: "openai", model: "gpt-4o-mini", settings: { temperature: 0.2, maxTokens: 256 } },
        messages: [
          { role: "system", content: [{ modality: "text", value: "You answer questions about {{product}}." }] },
          { role: "user", content: [{ modality: "text", value: "Where is order {{orderId}}?" }] },
        ],
      },
    }),
    "create prompt",
  );
  const deployment = await must<Schemas["Deployment"]>(
    call(server.url, key, "POST", `/prompts/${prompt.id}/deployments`, { deploymentEnvironmentId: environment.id }),
    "deploy",
  );
  const latest = `/v2/deployments?promptId=${prompt.id}&deploymentId=latest&deploymentEnvironmentId=${environment.id}`;
  const deploymentPaths: Record<string, string> = {
    "d.id": `/v2/deployments?promptId=${prompt.id}&deploymentId=${deployment.id}`,
    "d.latest": latest,
    "d.revalidate": latest,
  };
  for (const [id, path] of Object.entries(deploymentPaths)) {
    const scenario = storeScenarios.find((s) => s.id === id) as Scenario;
    const read = await call(server.url, key, "GET", path.slice(3));
    const problem = unavailable(read);
    // A cache's idle refresh: it holds the latest deployment and asks whether it is still the latest.
    const etag = id === "d.revalidate" ? read.headers.get("ETag") : null;
    run.jobs.set(
      id,
      problem ?? {
        url: server.url,
        method: "GET",
        path,
        headers: { Authorization: auth.Authorization, ...(etag !== null && { "If-None-Match": etag }) },
        connections: scenario.connections,
        durationSeconds: scenario.seconds,
        ...(etag !== null && { expectedStatus: 304 }),
      },
    );
  }

  if (store === "postgres") {
    const processServer = await startPharos(
      `pharos-${store}-process-limits`,
      { DATABASE_URL: database.url, ...limitsFor(store), PHAROS_RATE_LIMIT_SCOPE: "process", LOG_LEVEL },
      logDir,
    );
    const jobs = new Map<string, LoadJob>();
    for (const id of LIMITER_SCENARIOS) {
      const job = run.jobs.get(id);
      if (typeof job === "object") jobs.set(id, { ...job, url: processServer.url });
    }
    run.processScope = { server: processServer, jobs };
  }

  // Warm-up: every scenario once, briefly, not recorded.
  for (const scenario of storeScenarios) {
    for (const job of [run.jobs.get(scenario.id), run.processScope?.jobs.get(scenario.id)]) {
      if (typeof job === "object") await load.run({ ...job, durationSeconds: WARMUP_SECONDS });
    }
  }
  return run;
}

/** How many batches the shared limiter took from the database so far (its table's statistics), if known. */
export async function rateLimitTakes(url: string): Promise<number | undefined> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    const { rows } = await client.query<{ takes: string }>(
      `select n_tup_ins + n_tup_upd as takes from pg_stat_user_tables where relname = 'rateLimitWindows'`,
    );
    return rows[0] ? Number(rows[0].takes) : undefined;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => {});
  }
}
