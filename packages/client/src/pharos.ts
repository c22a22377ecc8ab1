/**
 * `createPharos`: what an application holds: the typed API client, and the monitor and deployment cache that use
 * the same server and key.
 */
import { type ClientOptions, createClient, type PharosClient } from "./client.ts";
import { initLatestDeployment, type LatestDeployment, type LatestDeploymentOptions } from "./deployment-cache.ts";
import { initMonitor, type Monitor, type MonitorOptions } from "./monitor/monitor.ts";

export interface Pharos {
  /** The typed client of every API operation (openapi-fetch), with retries. */
  api: PharosClient;
  /** A monitor for a project: traces and spans buffered and delivered in the background. */
  initMonitor(options: MonitorOptions): Monitor;
  /** The latest deployment of a prompt in an environment, fetched now and kept fresh in the background. */
  initLatestDeployment(options: LatestDeploymentOptions): Promise<LatestDeployment>;
}

export function createPharos(options: ClientOptions): Pharos {
  const api = createClient(options);
  return {
    api,
    initMonitor: (monitorOptions) => initMonitor(options, monitorOptions),
    initLatestDeployment: (deploymentOptions) => initLatestDeployment(api, deploymentOptions),
  };
}
