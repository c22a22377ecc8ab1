import type { ProviderKind } from "../store/schema.ts";

/** Everything needed to call one model through one provider record. */
export interface ModelTarget {
  provider: ProviderKind;
  /** null = the vendor's default endpoint. */
  baseUrl: string | null;
  /** null = send no key (only an openai-compatible server may work without one). */
  apiKey: string | null;
  /** Extra headers from the credentials, sent on every call. */
  headers: Record<string, string>;
  model: string;
}

export interface CallOptions {
  /** Limit for the whole call, retries included. */
  timeoutMs: number;
  /** Retries after the first attempt, on 408/409/429/5xx and network failures. */
  maxRetries: number;
  signal?: AbortSignal;
}
