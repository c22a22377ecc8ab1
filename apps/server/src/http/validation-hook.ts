import type { Hook } from "@hono/zod-openapi";
import { openapiDocument } from "@pharos/contract";
import type { z } from "zod";
import { invalidRequest } from "../errors.ts";
import type { AppEnv } from "./env.ts";
import { screenRequestPart } from "./request-screen.ts";

/** Where each part of a request is, in the details' field paths. */
const PREFIXES: Record<string, string> = { json: "", query: "query.", param: "path.", header: "header." };

/**
 * The validation hook of every route: a zod failure becomes VALIDATION_ERROR with one detail per issue, and so
 * does a value the schema accepts but every request must avoid (a U+0000, nesting too deep).
 */
// biome-ignore lint/suspicious/noExplicitAny: the hook serves every route, whatever its input and output types.
export const validationHook: Hook<any, AppEnv, any, any> = (result) => {
  const prefix = PREFIXES[result.target] ?? "";
  if (result.success) {
    // What no schema states (request-screen.ts), checked on what the schema let through.
    const problems = screenRequestPart(result.data, prefix);
    if (problems.length > 0) throw invalidRequest(problems);
    return;
  }
  throw invalidRequest(
    result.error.issues
      .flatMap((issue) => read(issue, []).issues)
      .map((issue) => ({ field: `${prefix}${issue.path.join(".")}`.replace(/\.$/, ""), issue: issue.message })),
  );
};

type Issue = z.core.$ZodIssue;

/** Properties that tell the members of the spec's unions apart (`type`, `modality`, `operator`, …). */
const DISCRIMINATORS = new Set<string>();
(function collect(node: unknown): void {
  if (node === null || typeof node !== "object") return;
  const name = (node as { discriminator?: { propertyName?: unknown } }).discriminator?.propertyName;
  if (typeof name === "string") DISCRIMINATORS.add(name);
  for (const child of Object.values(node)) collect(child);
})(openapiDocument);

/**
 * Why a union member did not take a value: `kind`, the value is not of the member's JSON type; `tag`, a
 * discriminating property (above) names another member.
 */
type Misfit = "kind" | "tag";

interface Reading {
  /** What to report, with paths from the request's root. */
  issues: Issue[];
  misfit?: Misfit;
  /** The issues that made it a `tag` misfit. */
  tags: Issue[];
}

/**
 * zod reports a union that no member accepts as one "Invalid input" carrying each member's issues. Discriminated
 * unions (generated for every `oneOf`) choose their member themselves; this reads the others, the `anyOf`s, such
 * as a nullable object or LogSpanContent (a SpanContent or a custom kind): members that did not take the value
 * for its JSON type or its discriminating property are set aside, and when exactly one member is left, its issues
 * are reported instead (`spans.0.content.provider` rather than `spans.0.content: Invalid input`). When every
 * member is set aside and some for their discriminating property, those issues are reported: together they say
 * which values would be accepted (SpanContent's eight types, and the pattern of a custom kind's name).
 * `issue.path` is relative to `at`, the path of the member (or request) it belongs to.
 */
function read(issue: Issue, at: PropertyKey[]): Reading {
  const path = [...at, ...issue.path];
  const located = { ...issue, path } as Issue;
  if (issue.code !== "invalid_union" || issue.errors.length === 0) {
    const isTag =
      issue.path.length === 1 &&
      ((issue.code === "invalid_union" && issue.discriminator !== undefined) ||
        DISCRIMINATORS.has(String(issue.path[0])));
    const misfit = issue.path.length === 0 && issue.code === "invalid_type" ? "kind" : isTag ? "tag" : undefined;
    return { issues: [located], misfit, tags: misfit === "tag" ? [located] : [] };
  }
  const members = issue.errors.map((memberIssues) => {
    const readings = memberIssues.map((memberIssue) => read(memberIssue, path));
    const misfits = readings.map((reading) => reading.misfit);
    return {
      issues: readings.flatMap((reading) => reading.issues),
      misfit: misfits.includes("kind") ? "kind" : misfits.includes("tag") ? "tag" : undefined,
      tags: readings.flatMap((reading) => reading.tags),
    };
  });
  const fitting = members.filter((member) => member.misfit === undefined);
  if (fitting.length === 1) return fitting[0] as Reading;
  if (fitting.length > 1) return { issues: [located], tags: [] };
  // No member takes the value. A union at the root of the member it sits in makes that member a misfit too.
  const tags = members.filter((member) => member.misfit === "tag").flatMap((member) => member.tags);
  const misfit: Misfit | undefined = issue.path.length > 0 ? undefined : tags.length > 0 ? "tag" : "kind";
  return { issues: tags.length > 0 ? tags : [located], misfit, tags: misfit === "tag" ? tags : [] };
}
