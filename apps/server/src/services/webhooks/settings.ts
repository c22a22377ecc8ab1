/** What the webhook services and the deliverer are configured with (ADR 0011). */
export interface WebhookSettings {
  /**
   * Whether endpoints may be on loopback, private, link-local and other non-public addresses
   * (PHAROS_WEBHOOKS_ALLOW_PRIVATE): off by default, so that a key holder cannot make the server call
   * services inside its network (SSRF). Tests allow loopback.
   */
  allowPrivateAddresses: boolean;
  /** How long one delivery attempt may take, connection to answer (PHAROS_WEBHOOK_TIMEOUT_MS, default 10 s). */
  timeoutMs: number;
  /** Tells this process's deliverer that deliveries were committed (others poll). */
  wake: () => void;
}

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  allowPrivateAddresses: false,
  timeoutMs: 10_000,
  wake: () => {},
};
