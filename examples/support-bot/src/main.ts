/**
 * A support bot on the Pharos SDK: it answers one question with the prompt deployed in Pharos, through an
 * OpenAI-compatible chat completions endpoint, and logs the call as a trace with a Model span.
 *
 *   pnpm --filter @pharos/example-support-bot start "Where is order 8812?"
 *
 * Environment: PHAROS_BASE_URL (…/v2), PHAROS_API_KEY (an ingest-only key is enough), PHAROS_PROJECT_ID,
 * PHAROS_PROMPT_ID and PHAROS_ENVIRONMENT_ID (the deployed prompt, with a `{{question}}` variable),
 * OPENAI_BASE_URL (…/v1) and OPENAI_API_KEY. Prints one JSON line: the answer and the trace's reference id.
 */
import { createPharos, injectVariables, type PromptMessage } from "@pharos/client";

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const pharos = createPharos({ baseUrl: env("PHAROS_BASE_URL"), apiKey: env("PHAROS_API_KEY") });
// Read once at start, then kept fresh in the background: the hot path below never waits for Pharos.
const prompt = await pharos.initLatestDeployment({
  promptId: env("PHAROS_PROMPT_ID"),
  deploymentEnvironmentId: env("PHAROS_ENVIRONMENT_ID"),
  refreshIntervalMs: 60_000,
});
const monitor = pharos.initMonitor({ projectId: env("PHAROS_PROJECT_ID") });

const answer = await answerQuestion(process.argv[2] ?? "Where is my order?");
process.stdout.write(`${JSON.stringify(answer)}\n`);

// Delivers what is still buffered before the process ends (a server would do this on SIGTERM).
prompt.stop();
await monitor.shutdown();

async function answerQuestion(question: string) {
  const deployment = prompt.get();
  const { messages, variables } = injectVariables(deployment, { question });
  const { config } = deployment.prompt;
  // A draft may be deployed without a model: that deployment cannot answer anyone.
  if (config.model === undefined) throw new Error(`deployment ${deployment.id} names no model`);
  const model = config.model;
  const trace = monitor.logTrace({ name: "support-bot", attributes: { channel: "cli" } });
  const span = trace.logSpan({ name: "llm-call", promptId: deployment.promptId, deploymentId: deployment.id });
  try {
    const completion = await chatCompletion(model, messages, config.settings?.temperature);
    const text = completion.choices[0]?.message.content ?? "";
    span.end({
      status: "success",
      content: {
        type: "Model",
        provider: config.providerName ?? "openai",
        model,
        input: JSON.stringify({ messages }),
        output: JSON.stringify({
          messages: [{ role: "assistant", content: [{ modality: "text", value: text }] }],
          tokenUsage: {
            promptTokens: completion.usage.prompt_tokens,
            completionTokens: completion.usage.completion_tokens,
            totalTokens: completion.usage.total_tokens,
          },
        }),
        variables,
      },
    });
    trace.end({ status: "success" });
    return { answer: text, traceReferenceId: trace.referenceId };
  } catch (error) {
    span.end({ status: "failure", attributes: { error: String(error) } });
    trace.end({ status: "failure" });
    throw error;
  }
}

interface ChatCompletion {
  choices: { message: { content: string | null } }[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/** One chat completion in the OpenAI wire format; the prompt's text parts become message strings. */
async function chatCompletion(model: string, messages: PromptMessage[], temperature?: number): Promise<ChatCompletion> {
  const response = await fetch(`${env("OPENAI_BASE_URL")}/chat/completions`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${env("OPENAI_API_KEY")}` },
    body: JSON.stringify({
      model,
      temperature,
      messages: messages.map((message) => ({
        role: message.role,
        content: message.content.flatMap((part) => (part.modality === "text" ? [part.value] : [])).join("\n"),
      })),
    }),
  });
  if (!response.ok) throw new Error(`the model answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as ChatCompletion;
}
