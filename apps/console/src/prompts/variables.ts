/** Splits message text into plain text and `{{variable}}` placeholders, for highlighting in the editor. */
export type Segment = { text: string; variable?: string };

const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g;

export function segments(text: string): Segment[] {
  const result: Segment[] = [];
  let last = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    const index = match.index ?? 0;
    if (index > last) result.push({ text: text.slice(last, index) });
    result.push({ text: match[0], variable: match[1] as string });
    last = index + match[0].length;
  }
  if (last < text.length) result.push({ text: text.slice(last) });
  return result;
}

export const variableNames = (text: string) => [
  ...new Set(segments(text).flatMap((segment) => (segment.variable ? [segment.variable] : []))),
];
