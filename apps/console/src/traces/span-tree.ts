/**
 * A trace's spans as a tree (a span's parent is the span whose `referenceId` its `parentReferenceId` names),
 * flattened in display order with each row's depth, and placed on the trace's time line for the waterfall.
 * A span whose parent is missing is a root, so nothing a trace holds is hidden.
 */
export interface TreeSpan {
  id: string;
  referenceId: string | null;
  parentReferenceId: string | null;
  startedAt: number;
  endedAt: number;
}

export interface TreeRow<S extends TreeSpan> {
  span: S;
  depth: number;
  /** Offset and width on the trace's time line, as fractions of its duration (0..1). */
  offset: number;
  width: number;
}

export function spanTree<S extends TreeSpan>(spans: readonly S[]): TreeRow<S>[] {
  const byReference = new Map<string, S>();
  for (const span of spans) if (span.referenceId !== null) byReference.set(span.referenceId, span);
  const children = new Map<string | null, S[]>();
  for (const span of spans) {
    const parent =
      span.parentReferenceId !== null &&
      span.parentReferenceId !== span.referenceId &&
      byReference.has(span.parentReferenceId)
        ? span.parentReferenceId
        : null;
    const siblings = children.get(parent) ?? [];
    siblings.push(span);
    children.set(parent, siblings);
  }
  for (const siblings of children.values())
    siblings.sort((a, b) => a.startedAt - b.startedAt || (a.id < b.id ? -1 : 1));

  const start = Math.min(...spans.map((span) => span.startedAt));
  const end = Math.max(...spans.map((span) => span.endedAt));
  const duration = Math.max(1, end - start);
  const rows: TreeRow<S>[] = [];
  const seen = new Set<string>();
  // Iterative depth-first walk: a 10,000-span chain must not overflow the stack.
  const stack: { span: S; depth: number }[] = [...(children.get(null) ?? [])]
    .reverse()
    .map((span) => ({ span, depth: 0 }));
  while (stack.length > 0) {
    const { span, depth } = stack.pop() as { span: S; depth: number };
    if (seen.has(span.id)) continue;
    seen.add(span.id);
    rows.push({
      span,
      depth,
      offset: (span.startedAt - start) / duration,
      width: Math.max(0, span.endedAt - span.startedAt) / duration,
    });
    const below = span.referenceId === null ? [] : (children.get(span.referenceId) ?? []);
    for (let i = below.length - 1; i >= 0; i--) stack.push({ span: below[i] as S, depth: depth + 1 });
  }
  // Spans only reachable through a cycle of parents: shown as roots rather than lost.
  for (const span of spans) {
    if (!seen.has(span.id)) {
      rows.push({
        span,
        depth: 0,
        offset: (span.startedAt - start) / duration,
        width: (span.endedAt - span.startedAt) / duration,
      });
    }
  }
  return rows;
}
