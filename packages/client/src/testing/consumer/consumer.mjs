// An application using the installed @pharos/client with plain Node: every entry point, against the server at
// PHAROS_BASE_URL. Prints one JSON line of what it saw. Its last trace is left for the monitor's beforeExit flush.
import { createHmac } from "node:crypto";
import { createPharos, injectVariables, paginate, unwrap, verifyWebhook } from "@pharos/client";

const { PHAROS_BASE_URL, PHAROS_API_KEY, PROJECT_ID, PROMPT_ID, ENVIRONMENT_ID, EXIT_TRACE } = process.env;
const pharos = createPharos({ baseUrl: PHAROS_BASE_URL, apiKey: PHAROS_API_KEY });

// The typed client, unwrap and pagination.
const project = unwrap(await pharos.api.GET("/projects/{projectId}", { params: { path: { projectId: PROJECT_ID } } }));
const projectIds = [];
for await (const one of paginate(pharos.api, "GET", "/projects")) projectIds.push(one.id);

// The deployment cache and variables.
const prompt = await pharos.initLatestDeployment({
  promptId: PROMPT_ID,
  deploymentEnvironmentId: ENVIRONMENT_ID,
  refreshIntervalMs: 60_000,
});
await prompt.refresh();
const injected = injectVariables(prompt.get(), { question: "Where is order 8812?" });
const cache = prompt.status();
prompt.stop();

// The monitor: one trace flushed explicitly, one left to the exit hook.
const monitor = pharos.initMonitor({ projectId: PROJECT_ID });
const trace = monitor.logTrace({ name: "installed-package" });
const llm = trace.logSpan({
  name: "llm-call",
  promptId: PROMPT_ID,
  deploymentId: prompt.get().id,
  content: {
    type: "Model",
    provider: "openai",
    model: "gpt-4o-mini",
    input: JSON.stringify({ messages: injected.messages }),
    output: JSON.stringify({ messages: [{ role: "assistant", content: [{ modality: "text", value: "Tomorrow." }] }] }),
    variables: injected.variables,
  },
});
llm.logSpan({ name: "tool" }).end({ status: "success" });
llm.end({ status: "success" });
trace.end({ status: "success" });
await monitor.flush();
const afterFlush = monitor.status();
monitor.logTrace({ name: "left-for-exit", referenceId: EXIT_TRACE }).end({ status: "success" });

// Webhook verification, signed as the server signs.
const body = '{"type":"create-deployment","eventId":"ev_1"}';
const t = Date.now();
const header = `t=${t}&v1=${createHmac("sha256", "whsec_x").update(`${t}.${body}`).digest("hex")}`;
const webhook = [await verifyWebhook(body, header, "whsec_x"), await verifyWebhook(body, header, "whsec_y")];

console.log(
  JSON.stringify({
    project: project.id,
    listed: projectIds.includes(project.id),
    text: injected.messages[0].content[0].value,
    missing: injected.missing,
    cache: { source: cache.source, consecutiveFailures: cache.consecutiveFailures },
    monitor: { sent: afterFlush.sent, failed: afterFlush.failed, dropped: afterFlush.dropped },
    traceReferenceId: trace.referenceId,
    webhook,
  }),
);
