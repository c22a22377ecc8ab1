import type { RouteDefinition } from "../define-route.ts";
import createWebhook from "./create-webhook.ts";
import deleteWebhook from "./delete-webhook.ts";
import getWebhook from "./get-webhook.ts";
import listWebhookDeliveries from "./list-webhook-deliveries.ts";
import listWebhooks from "./list-webhooks.ts";
import rotateWebhookSecret from "./rotate-webhook-secret.ts";
import sendWebhookTestEvent from "./send-webhook-test-event.ts";
import updateWebhook from "./update-webhook.ts";

/** The Webhooks operations, in spec order (their paths follow the project's). */
export const webhookRoutes = [
  listWebhooks,
  createWebhook,
  getWebhook,
  updateWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  sendWebhookTestEvent,
  listWebhookDeliveries,
] as RouteDefinition[];
