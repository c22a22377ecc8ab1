/**
 * The few rules that make hono-takibi's output match the spec (DESIGN.md, "The contract pipeline";
 * docs/adr/0003). Each exists because of a gap seen with hono-takibi 0.9.995; the contract tests prove the
 * generated schemas enforce what the spec says, so a generator upgrade that closes a gap shows up there.
 */

type Node = Record<string, unknown>;

const RECORD_LIMITS = "x-pharos-record-limits";

function walk(value: unknown, visit: (node: Node) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, visit);
  } else if (value !== null && typeof value === "object") {
    visit(value as Node);
    for (const child of Object.values(value)) walk(child, visit);
  }
}

const isSchemaWithLimits = (node: Node) =>
  node.maxProperties !== undefined ||
  node.minProperties !== undefined ||
  (node.propertyNames as Node | undefined)?.maxLength !== undefined ||
  (node.propertyNames as Node | undefined)?.minLength !== undefined;

/** A copy of the bundle rewritten into the subset hono-takibi translates faithfully. */
export function prepareForHonoTakibi(document: Node): Node {
  const copy = structuredClone(document);
  walk(copy, (node) => {
    // int64/int32 integers become zod bigints, which reject JSON numbers: plain integers keep the bounds.
    const type = node.type;
    if ((type === "integer" || (Array.isArray(type) && type.includes("integer"))) && typeof node.format === "string") {
      delete node.format;
    }
    // Optional parameters must say so, or some of them are generated as required.
    if (typeof node.in === "string" && typeof node.name === "string" && node.required === undefined) {
      node.required = false;
    }
    // Map size limits are dropped on records (and beside a $ref): carry them in an extension that
    // hono-takibi copies into `.openapi({...})`, where patchGeneratedRoutes turns it into a refinement.
    // Objects with declared properties keep their key counts, but lose key lengths too.
    const isRecord = node.properties === undefined && typeof node.additionalProperties === "object";
    const names = node.propertyNames as Node | undefined;
    const keyLengths = (names?.minLength ?? names?.maxLength) !== undefined && {
      propertyNames: { minLength: names?.minLength, maxLength: names?.maxLength },
    };
    if ((isRecord || typeof node.$ref === "string") && isSchemaWithLimits(node)) {
      node[RECORD_LIMITS] = {
        ...(node.maxProperties !== undefined && { maxProperties: node.maxProperties }),
        ...(node.minProperties !== undefined && { minProperties: node.minProperties }),
        ...keyLengths,
      };
    } else if (keyLengths && node.type === "object") {
      node[RECORD_LIMITS] = keyLengths;
    }
  });
  return copy;
}

/** Post-pass over the generated module: each record-limits mark becomes a `recordWithin` refinement. */
export function patchGeneratedRoutes(code: string): string {
  const mark = `'${RECORD_LIMITS}': `;
  let patched = code;
  let at = patched.indexOf(mark);
  while (at >= 0) {
    const openapiCall = patched.lastIndexOf(".openapi(", at);
    const valueEnd = closingBrace(patched, at + mark.length) + 1;
    const limits = patched.slice(at + mark.length, valueEnd);
    const entryEnd = patched[valueEnd] === "," ? valueEnd + 1 : valueEnd;
    patched =
      patched.slice(0, openapiCall) +
      `.refine(...recordWithin(${limits}))` +
      patched.slice(openapiCall, at) +
      `...${limits},` +
      patched.slice(entryEnd);
    at = patched.indexOf(mark);
  }
  if (patched === code) return code;
  return patched.replace(/^(import .*\n)/m, `$1import { recordWithin } from "../record-limits.ts";\n`);
}

/** Index of the `}` that closes the object literal starting at `open`. */
function closingBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return i;
  }
  throw new Error("unbalanced object literal in generated routes");
}
