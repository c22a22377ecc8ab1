/**
 * Table types of the Pharos database, the same on SQLite and PostgreSQL. Columns are camelCase; JSON values
 * are stored as text and parsed by the services; times are Unix milliseconds.
 */
import type { Generated } from "kysely";
import type { Role } from "../auth/roles.ts";

export interface Database {
  settings: { key: string; value: string };
  /** One row (id 1): bumped by trigger on every change to a table the read cache serves (migration 0007). */
  cacheGeneration: { id: number; generation: number };
  /**
   * PostgreSQL only (migration 0009): the rate limiter's count of the current minute per workspace and class,
   * shared by the replicas (store/rate-windows.ts).
   */
  rateLimitWindows: { key: string; windowStart: number; count: number; granted: number };
  workspaces: { id: string; name: string; createdAt: number; updatedAt: number };
  apiKeys: {
    id: string;
    workspaceId: string;
    name: string;
    secretHash: string;
    role: Role;
    /** JSON array of project ids the key is restricted to; null = every project of the workspace. */
    projectIds: string | null;
    createdAt: number;
    revokedAt: number | null;
    /** Unix ms after which the key is refused; null = never. */
    expiresAt: number | null;
  };
  /** When each key was last used, to the minute (migration 0008: kept apart from the cached `apiKeys`). */
  apiKeyUsage: { keyId: string; lastUsedAt: number };
  projects: {
    id: string;
    workspaceId: string;
    title: string;
    icon: string;
    /** JSON text of the project's MaskingRule array (migration 0015). */
    maskingRules: string;
    /** Days logs are kept; null = forever (migration 0015). */
    retentionDays: number | null;
    createdAt: number;
    updatedAt: number;
  };
  deploymentEnvironments: {
    id: string;
    workspaceId: string;
    projectId: string;
    name: string;
    /** Lower-cased name: environment names are unique per project, case-insensitively. */
    nameKey: string;
    createdAt: number;
    updatedAt: number;
  };
  prompts: {
    id: string;
    workspaceId: string;
    projectId: string;
    title: string;
    icon: string;
    /** JSON: {config, messages, tools}. */
    draft: string;
    /** JSON: the default playground {id, title, messages}. */
    playground: string;
    createdAt: number;
    updatedAt: number;
  };
  deployments: {
    id: string;
    workspaceId: string;
    projectId: string;
    promptId: string;
    deploymentEnvironmentId: string;
    /** JSON: PromptSnapshot. */
    snapshot: string;
    createdByKeyId: string;
    createdAt: number;
  };
  datasets: {
    id: string;
    workspaceId: string;
    projectId: string;
    title: string;
    icon: string;
    description: string;
    rowCount: number;
    createdAt: number;
    updatedAt: number;
  };
  datasetColumns: {
    id: string;
    datasetId: string;
    name: string;
    type: "static" | "prompt" | "api";
    /** JSON settings of the column's type. */
    settings: string;
    position: Generated<number>;
    createdAt: number;
    updatedAt: number;
  };
  datasetRows: {
    id: string;
    datasetId: string;
    /** JSON object keyed by column id. */
    values: string;
    createdAt: number;
    updatedAt: number;
    /** The span the row was made from, if it was (createDatasetRowsFromSpans). */
    sourceSpanId?: string | null;
  };
  /** The state of a `prompt` or `api` column's cell of a row, once queued (ADR 0020). */
  datasetComputedCells: {
    rowId: string;
    columnId: string;
    datasetId: string;
    workspaceId: string;
    status: "pending" | "done" | "failed";
    /** Order within the row: a cell waits for pending cells of lower stages (the columns it reads). */
    stage: number;
    reason: string | null;
    latency: number | null;
    cost: number | null;
    leaseOwner: string | null;
    leaseExpiresAt: number | null;
    queuedAt: number;
    updatedAt: number;
  };
  evaluators: {
    id: string;
    workspaceId: string;
    projectId: string;
    promptId: string;
    datasetId: string;
    title: string;
    /** JSON: EvaluatorConfig. */
    config: string;
    status: "active" | "archived";
    /** Share of matching live spans graded, 0–1 (migration 0012). */
    onlineSampleRate: Generated<number>;
    /** JSON: LogFilter[] a live span must match to be graded. */
    onlineFilters: Generated<string>;
    createdAt: number;
    updatedAt: number;
  };
  /**
   * A live span queued for one evaluator (continuous evaluation), inserted with the span; its result is
   * recorded on the row (`state: done`, with `grade`… or `error`).
   */
  onlineEvaluations: {
    spanId: string;
    evaluatorId: string;
    workspaceId: string;
    projectId: string;
    traceId: string;
    state: "pending" | "claimed" | "done";
    leaseOwner: string | null;
    leaseExpiresAt: number | null;
    /** When the span was committed. */
    queuedAt: number;
    gradedAt: number | null;
    grade: "pass" | "fail" | "unknown" | null;
    score: number | null;
    reason: string | null;
    /** Why the span could not be graded; null when it was. */
    error: string | null;
    /** Judge model calls made for this grade (the per-evaluator cap counts them). */
    judgeCalls: Generated<number>;
  };
  /** One trace; its aggregates are kept on write so search needs no joins. */
  logTraces: {
    id: string;
    workspaceId: string;
    projectId: string;
    name: string;
    status: LogStatus;
    startedAt: number;
    endedAt: number;
    /** endedAt − startedAt, ms. */
    latency: number;
    referenceId: string | null;
    sessionId: string | null;
    /** The end user of the customer's application the trace served. */
    userId: string | null;
    /** JSON object. */
    attributes: string;
    /** JSON string[]. */
    tags: string;
    /** JSON string[], in write order. */
    spanIds: string;
    totalCost: number;
    totalInputTokens: number;
    totalOutputTokens: number;
    createdAt: number;
    updatedAt: number;
  };
  logSpans: {
    id: string;
    workspaceId: string;
    projectId: string;
    traceId: string;
    name: string;
    status: LogStatus;
    /** The content's `type`: a built-in type or a custom name. */
    contentType: string;
    startedAt: number;
    endedAt: number;
    latency: number;
    promptId: string | null;
    deploymentId: string | null;
    referenceId: string | null;
    parentReferenceId: string | null;
    sessionId: string | null;
    /** 0 or 1. */
    runEvaluation: number;
    /** Model / ModelStream content's model and provider, for search. */
    model: string | null;
    provider: string | null;
    cost: number | null;
    promptTokens: number | null;
    completionTokens: number | null;
    totalTokens: number | null;
    /** Compact JSON text of the content. */
    content: string;
    attributes: string;
    tags: string;
    /** JSON string[]. */
    events: string;
    createdAt: number;
    updatedAt: number;
    /** An OTLP span's origin (migration 0026): its resource, scope and kind attributes, indexed once per set. */
    originId: string | null;
  };
  /**
   * One row per attribute of a trace or span, typed, so attribute filters use an index instead of scanning
   * the project. Exactly one of the value columns is set.
   */
  logAttributes: {
    projectId: string;
    ownerKind: "trace" | "span";
    ownerId: string;
    key: string;
    textValue: string | null;
    numberValue: number | null;
    /** 0 or 1. */
    booleanValue: number | null;
    startedAt: number;
  };
  /**
   * One row per attribute of a span origin (migration 0026): the `otel.resource.*`, `otel.scope.*` and
   * `otel.span.kind` attributes its OTLP spans share, for attribute filters on spans. Exactly one value column is set.
   */
  logOriginAttributes: {
    projectId: string;
    originId: string;
    key: string;
    textValue: string | null;
    numberValue: number | null;
    /** 0 or 1. */
    booleanValue: number | null;
  };
  /** One row per tag of a trace or span, for indexed tag filters. */
  logTags: {
    projectId: string;
    ownerKind: "trace" | "span";
    ownerId: string;
    tag: string;
    startedAt: number;
  };
  /**
   * Metrics rollups (migration 0013, ADR 0017): per project, UTC bucket and combination of span dimensions
   * ("" = none), the sums of the spans that started in the bucket, kept by every log write in its transaction.
   */
  logSpanRollups: {
    projectId: string;
    bucketSize: "minute" | "hour" | "day";
    /** Start of the bucket, Unix ms. */
    bucketStart: number;
    model: string;
    provider: string;
    promptId: string;
    /** The environment dimension: a deployment belongs to one environment, resolved when queried. */
    deploymentId: string;
    contentType: string;
    spanCount: number;
    /** Spans with status `failure`. */
    failedSpans: number;
    cost: number;
    inputTokens: number;
    outputTokens: number;
    /** JSON text: log-spaced latency bucket index → count (services/metrics/latency-histogram.ts). */
    latencyHistogram: string;
  };
  /**
   * The span rollups per single dimension (migration 0021, ADR 0017): per project, hour or day bucket and one of
   * model / provider / promptId / deploymentId / contentType with its value ("" = none), or dimension "" (all
   * spans, value ""): the sums of logSpanRollups over the other dimensions, kept in the same writes. Migration
   * 0023 adds the trace-side dimensions userId / sessionId (the span's trace's) and tag (each of the span's own and
   * its trace's tags), kept from the spans themselves: a span with k tags is in k tag rows.
   */
  logSpanDimensionRollups: {
    projectId: string;
    bucketSize: "hour" | "day";
    bucketStart: number;
    dimension: "" | "model" | "provider" | "promptId" | "deploymentId" | "contentType" | "userId" | "sessionId" | "tag";
    value: string;
    spanCount: number;
    failedSpans: number;
    cost: number;
    inputTokens: number;
    outputTokens: number;
    latencyHistogram: string;
  };
  /**
   * Trace counts per project, hour or day bucket of the trace's start and one trace-side dimension (userId,
   * sessionId or tag) with its value ("" = none; a trace with k tags is in k tag rows): migration 0023.
   */
  logTraceDimensionRollups: {
    projectId: string;
    bucketSize: "hour" | "day";
    bucketStart: number;
    dimension: "userId" | "sessionId" | "tag";
    value: string;
    traceCount: number;
  };
  /** Trace counts per project, UTC bucket of the trace's start and trace name (migration 0013). */
  logTraceRollups: {
    projectId: string;
    bucketSize: "minute" | "hour" | "day";
    bucketStart: number;
    traceName: string;
    traceCount: number;
  };
  /** Numeric and boolean scores per project, UTC bucket of their createdAt and name (ADR 0017; migration 0020). */
  scoreRollups: {
    projectId: string;
    bucketSize: "minute" | "hour" | "day";
    bucketStart: number;
    scoreName: string;
    scoreCount: number;
    scoreSum: number;
  };
  /** A workspace's LLM provider record; `credentials` is sealed (secrets/secret-box.ts), never stored in clear. */
  providers: {
    id: string;
    workspaceId: string;
    provider: ProviderKind;
    displayName: string;
    /** Lower-cased display name: unique per workspace, case-insensitively. */
    displayNameKey: string;
    baseUrl: string | null;
    /** Sealed JSON of ProviderCredentials, or null. */
    credentials: string | null;
    createdAt: number;
    updatedAt: number;
  };
  /**
   * One evaluation run. What it evaluates is copied when it is accepted (prompt version, evaluator config,
   * dataset columns and rows), so later edits do not change a run. Counters are updated in the transaction
   * that records each result, so a read always sees exact progress and metrics.
   */
  evaluationRuns: {
    id: string;
    workspaceId: string;
    projectId: string;
    promptId: string;
    evaluatorId: string;
    datasetId: string;
    deploymentId: string | null;
    status: EvaluationRunStatus;
    /** JSON: {config: PromptConfig, messages: PromptMessage[], tools: PromptTool[]}. */
    promptVersion: string;
    /** JSON: EvaluatorConfig (normal form). */
    evaluatorConfig: string;
    /** JSON: [{id, name}] of the dataset's columns when the run was accepted. */
    columns: string;
    totalRows: number;
    completedRows: number;
    failedRows: number;
    passRuns: number;
    failRuns: number;
    unknownRuns: number;
    totalCost: number;
    totalLatency: number;
    totalTokenCount: number;
    error: string | null;
    /** timeline.submittedAt. */
    createdAt: number;
    startedAt: number | null;
    finishedAt: number | null;
    updatedAt: number;
  };
  /** The rows a run covers, copied when it is accepted, and which worker holds each (a lease). */
  evaluationRunItems: {
    runId: string;
    rowId: string;
    position: number;
    /** JSON object keyed by column id, as the row was when the run was accepted. */
    values: string;
    state: "pending" | "claimed" | "done";
    leaseOwner: string | null;
    leaseExpiresAt: number | null;
  };
  evaluationResults: {
    id: string;
    runId: string;
    rowId: string;
    grade: "pass" | "fail" | "unknown";
    score: number;
    reason: string;
    output: string | null;
    error: string | null;
    cost: number;
    latency: number;
    tokenCount: number;
    createdAt: number;
  };
  /** A webhook endpoint of a project (migration 0010). */
  webhooks: {
    id: string;
    workspaceId: string;
    projectId: string;
    name: string;
    url: string;
    /** JSON array of WebhookEventType. */
    events: string;
    /** JSON object: custom header name → value. */
    headers: string;
    /** The signing secret, sealed with the secret box. */
    secret: string;
    /** Sealed; signs beside `secret` until `previousSecretExpiresAt` (12 hours after a rotation). */
    previousSecret: string | null;
    previousSecretExpiresAt: number | null;
    createdAt: number;
    updatedAt: number;
  };
  /** An event of the outbox: its body exactly as every delivery of it sends it. */
  webhookEvents: {
    id: string;
    workspaceId: string;
    projectId: string;
    type: WebhookDeliveryType;
    /** The JSON text POSTed: {type, eventId, createdAt, payload}. */
    body: string;
    createdAt: number;
  };
  /** One event to one endpoint: pending until an attempt gets a 2xx or `retryUntil` passes. */
  webhookDeliveries: {
    id: string;
    webhookId: string;
    eventId: string;
    type: WebhookDeliveryType;
    status: "pending" | "succeeded" | "failed";
    /** JSON array of {attemptedAt, durationMs, statusCode, error}. */
    attempts: string;
    /** Due time while pending (a claim moves it past the attempt's timeout: a lease); null once settled. */
    nextAttemptAt: number | null;
    /** No attempt starts after this (the event's time + the retry window). */
    retryUntil: number;
    createdAt: number;
    updatedAt: number;
  };
  /**
   * A graded judgement on a trace or one of its spans (migration 0011). `numberValue` holds a numeric value, or
   * a boolean as 1 / 0; `stringValue` a category. `dataType` tells which the value was.
   */
  scores: {
    id: string;
    workspaceId: string;
    projectId: string;
    traceId: string;
    /** null: the score is on the trace as a whole. */
    spanId: string | null;
    name: string;
    dataType: ScoreDataType;
    numberValue: number | null;
    stringValue: string | null;
    comment: string | null;
    source: ScoreSource;
    /** The evaluator (and its run, when graded by an evaluation run) that produced the score. */
    evaluatorId: string | null;
    runId: string | null;
    /** The API key that wrote the score; null for scores the server produced itself. */
    authorKeyId: string | null;
    createdAt: number;
    updatedAt: number;
  };
  /** Types a score name of a project: values of that name must fit it (migration 0011). */
  scoreConfigs: {
    id: string;
    workspaceId: string;
    projectId: string;
    name: string;
    dataType: ScoreDataType;
    /** Inclusive bounds of a numeric config; null = unbounded on that side. */
    minValue: number | null;
    maxValue: number | null;
    /** JSON string[] of a categorical config; null otherwise. */
    categories: string | null;
    description: string;
    createdAt: number;
    updatedAt: number;
  };
}

export type ScoreDataType = "numeric" | "categorical" | "boolean";
export type ScoreSource = "api" | "evaluator";

export type WebhookDeliveryType = "create-deployment" | "evaluation-run-finished" | "test";

export type ProviderKind = "openai" | "anthropic" | "openai-compatible";
export type EvaluationRunStatus = "queued" | "running" | "completed" | "failed" | "cancelled" | "cancelling";

export type LogStatus = "success" | "failure" | "aborted" | "cancelled" | "pending" | "unknown";
