/** What a span would put into a dataset row (`createDatasetRowsFromSpans`), read for the "Add to dataset" form. */
import type { Schemas } from "../api.ts";

/** The names of the span's prompt variables (a Model span's `variables`), which fill columns of the same name. */
export function spanVariableNames(content: Schemas["LogSpanContent"]): string[] {
  const variables = (content as { variables?: Record<string, unknown> }).variables;
  return variables && typeof variables === "object" ? Object.keys(variables) : [];
}

/**
 * The columns an add-from-span request lacks, from the API's 400 details (`columns.<name>` for a variable,
 * `outputColumn`/`inputColumn` for the named targets), so the screen can name them.
 */
export function missingColumns(
  error: unknown,
  requested: { outputColumn?: string; inputColumn?: string } = {},
): string[] {
  const details = (error as { error?: { details?: Schemas["ErrorDetail"][] } } | undefined)?.error?.details ?? [];
  return details.flatMap(({ field }) => {
    if (field.startsWith("columns.")) return [field.slice("columns.".length)];
    if (field === "outputColumn" && requested.outputColumn) return [requested.outputColumn];
    if (field === "inputColumn" && requested.inputColumn) return [requested.inputColumn];
    return [];
  });
}
