import type { components } from "@pharos/contract/types";

type ErrorBody = components["schemas"]["Error"];
type ErrorCode = components["schemas"]["ErrorCode"];

/** A non-2xx answer, thrown by the conveniences (`unwrap`, `paginate`); plain calls return `{ error }` instead. */
export class PharosApiError extends Error {
  readonly status: number;
  /** The spec's error code, when the body is the spec's error envelope. */
  readonly code: ErrorCode | undefined;
  readonly requestId: string | null;
  readonly body: unknown;

  constructor(response: Response, body: unknown) {
    const envelope = isErrorBody(body) ? body.error : undefined;
    super(`${response.status} ${envelope ? `${envelope.code}: ${envelope.message}` : response.statusText}`);
    this.name = "PharosApiError";
    this.status = response.status;
    this.code = envelope?.code;
    this.requestId = response.headers.get("X-Request-Id");
    this.body = body;
  }
}

function isErrorBody(body: unknown): body is ErrorBody {
  const error = (body as { error?: unknown } | null)?.error;
  return typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string";
}

/** The data of the success member of an openapi-fetch result. */
type DataOf<Result> = Result extends { data: infer Data; error?: never } ? Data : never;

/** The data of a successful call (undefined for a 204), or a thrown PharosApiError. */
export function unwrap<Result extends { data?: unknown; error?: unknown; response: Response }>(
  result: Result,
): DataOf<Result> {
  if (!result.response.ok) throw new PharosApiError(result.response, result.error);
  return result.data as DataOf<Result>;
}
