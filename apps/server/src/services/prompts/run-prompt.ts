/**
 * A playground run (runPrompt): the draft or a deployment filled with the caller's values, one model call
 * through the prompt's provider record (the evaluation workers' choice and client), and the call logged as a
 * trace through the ordinary log write path, answered or failed. See ADR 0025.
 */
import type { schemas } from "@pharos/contract";
import { ApiError, conflict, invalid, invalidRequest } from "../../errors.ts";
import { costOf } from "../../llm/call-cost.ts";
import { callModel, ModelCallError, type ModelCallResult } from "../../llm/call-model.ts";
import type { ModelTarget } from "../../llm/model-target.ts";
import { renderPrompt } from "../../worker/render-prompt.ts";
import type { ServiceContext } from "../context.ts";
import { deploymentVersion, draftVersion } from "../evaluations/create-evaluation.ts";
import type { RunPromptVersion } from "../evaluations/run.ts";
import { createLogTrace } from "../logs/create-log-trace.ts";
import type { BodyOf, PathOf, Unread } from "../operation-input.ts";
import { resolveModelTarget } from "../providers/resolve-target.ts";
import { requirePrompt } from "./prompt.ts";
import { MAX_VARIABLES, variableList } from "./template-variables.ts";

export type RunPromptResult = schemas.RunPromptResponse;

/** The name and tag of every trace a playground run writes, so they can be found (or filtered out) in search. */
export const PLAYGROUND_TRACE_NAME = "playground";

export async function runPrompt(
  ctx: ServiceContext,
  { promptId }: PathOf<"runPrompt">,
  body: BodyOf<"runPrompt">,
): Promise<RunPromptResult> {
  const { variables = {}, deploymentId, ...unread } = body;
  unread satisfies Unread;
  // The generated validator drops `maxProperties` (DESIGN.md, codegen gaps): enforced here.
  if (Object.keys(variables).length > MAX_VARIABLES) {
    throw invalid("variables", `must have at most ${MAX_VARIABLES} entries`);
  }
  const prompt = await requirePrompt(ctx, promptId);
  const version: RunPromptVersion =
    deploymentId === undefined ? draftVersion(prompt.draft) : await deploymentVersion(ctx, prompt.id, deploymentId);

  const rendered = renderPrompt(version.messages, variables);
  if ("missing" in rendered) {
    throw invalidRequest(
      rendered.missing.map((name) => ({
        field: `variables.${name}`,
        issue: `is required: the prompt uses {{${name}}}`,
      })),
    );
  }
  const resolved = await resolveModelTarget(ctx.db, ctx.secrets, ctx.principal.workspaceId, version.config);
  if ("error" in resolved) throw conflict(`The prompt cannot run: ${resolved.error}.`);
  const { target, providerId } = resolved;

  const run: PlaygroundCall = {
    projectId: prompt.projectId,
    promptId: prompt.id,
    deploymentId: deploymentId ?? null,
    target,
    messages: rendered.messages,
    variables: spanVariables(version, variables),
    startedAt: ctx.now(),
  };
  let call: ModelCallResult;
  try {
    call = await callModel(
      target,
      { messages: rendered.messages, tools: version.tools, settings: version.config.settings },
      ctx.modelCalls,
    );
  } catch (error) {
    if (!(error instanceof ModelCallError)) throw error;
    const logged = await logCall(ctx, run, { error: error.message });
    throw new ApiError(
      "PROVIDER_ERROR",
      `The provider failed: ${error.message}. The call is logged as trace ${logged.traceId}.`,
    );
  }
  const cost = costOf(target, call.inputTokens, call.outputTokens);
  const logged = await logCall(ctx, run, { call, cost });
  const totalTokens =
    call.inputTokens === null || call.outputTokens === null ? null : call.inputTokens + call.outputTokens;
  return {
    messages: call.responseMessages,
    text: call.text,
    usage: { inputTokens: call.inputTokens, outputTokens: call.outputTokens, totalTokens },
    cost,
    latencyMs: call.latencyMs,
    provider: target.provider,
    providerId,
    model: target.model,
    deploymentId: run.deploymentId,
    traceId: logged.traceId,
    spanId: logged.spanIds[0] as string,
  };
}

interface PlaygroundCall {
  projectId: string;
  promptId: string;
  deploymentId: string | null;
  target: ModelTarget;
  messages: schemas.PromptMessage[];
  variables: Record<string, schemas.SpanVariable>;
  startedAt: number;
}

/** The values of the variables the version uses, with their modality, as a Model span records them. */
function spanVariables(
  version: RunPromptVersion,
  values: Readonly<Record<string, string>>,
): Record<string, schemas.SpanVariable> {
  return Object.fromEntries(
    variableList(version.messages).map(({ name, modality }) => [name, { modality, value: values[name] ?? "" }]),
  );
}

/**
 * Writes the call as a trace with one Model span in the platform form, through createLogTrace: the same
 * checks, masking, aggregates and metrics as a trace an application sends.
 */
function logCall(
  ctx: ServiceContext,
  run: PlaygroundCall,
  outcome: { call: ModelCallResult; cost: number | null } | { error: string },
) {
  const failed = "error" in outcome;
  const latencyMs = failed ? 0 : outcome.call.latencyMs;
  // Spans must end strictly after they start, even for a call faster than the clock's resolution.
  const endedAt = Math.max(ctx.now(), run.startedAt + latencyMs, run.startedAt + 1);
  const output = failed
    ? { messages: [], error: { message: outcome.error } }
    : {
        messages: outcome.call.responseMessages,
        ...(outcome.call.inputTokens !== null &&
          outcome.call.outputTokens !== null && {
            tokenUsage: {
              promptTokens: outcome.call.inputTokens,
              completionTokens: outcome.call.outputTokens,
              totalTokens: outcome.call.inputTokens + outcome.call.outputTokens,
            },
          }),
      };
  const status = failed ? "failure" : "success";
  return createLogTrace(ctx, {
    projectId: run.projectId,
    trace: {
      name: PLAYGROUND_TRACE_NAME,
      status,
      startedAt: run.startedAt,
      endedAt,
      tags: [PLAYGROUND_TRACE_NAME],
    },
    spans: [
      {
        name: PLAYGROUND_TRACE_NAME,
        status,
        startedAt: run.startedAt,
        endedAt,
        promptId: run.promptId,
        ...(run.deploymentId !== null && { deploymentId: run.deploymentId }),
        runEvaluation: false,
        content: {
          type: "Model",
          provider: run.target.provider,
          model: run.target.model,
          input: JSON.stringify({ messages: run.messages }),
          output: JSON.stringify(output),
          ...(!failed && outcome.cost !== null && { cost: outcome.cost }),
          variables: run.variables,
        },
      },
    ],
  });
}
