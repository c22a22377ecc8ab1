// Type-checked against the installed package's declarations only (pack.test.ts): the contract's types must
// be inside them, and the SDK's own types must name the spec's shapes.
import {
  createPharos,
  type Deployment,
  injectVariables,
  type MonitorStatus,
  type Schemas,
  unwrap,
  verifyWebhook,
} from "@pharos/client";

export async function check(): Promise<void> {
  const pharos = createPharos({ baseUrl: "http://127.0.0.1:8080/v2", apiKey: "k" });
  const project: Schemas["Project"] = unwrap(await pharos.api.POST("/projects", { body: { title: "Typed" } }));
  const prompt = await pharos.initLatestDeployment({ promptId: "p", deploymentEnvironmentId: "e" });
  const deployment: Deployment = prompt.get();
  const monitor = pharos.initMonitor({ projectId: project.id });
  monitor
    .logTrace({ name: "t" })
    .logSpan({ name: "s", content: { type: "Tool", input: "{}", output: "{}" } })
    .end({ status: "success" });
  const status: MonitorStatus = monitor.status();
  const variables: Schemas["SpanVariable"] | undefined = injectVariables(deployment, {}).variables.question;
  const valid: boolean = await verifyWebhook("{}", "t=1&v1=00", "secret");
  // @ts-expect-error: a span status is success, failure or unknown
  monitor.logTrace({ name: "t" }).logSpan({ name: "s" }).end({ status: "pending" });
  void [status, variables, valid];
}
