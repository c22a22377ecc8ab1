/**
 * Custom HTTP headers (a webhook endpoint's, an api column's) as a person types them: one `Name: value` a line, as in an HTTP request.
 * The API checks names and values; here only the shape of a line is.
 */
export type HeadersParse = { headers: Record<string, string> } | { error: string };

export function parseHeaders(text: string): HeadersParse {
  const headers: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") continue;
    const colon = line.indexOf(":");
    if (colon <= 0) return { error: `Line ${index + 1} is not “Name: value”.` };
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return { headers };
}

export const formatHeaders = (headers: Record<string, string>) =>
  Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join("\n");
