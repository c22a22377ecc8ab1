/**
 * A project's masking rules: checked when saved, compiled into a Masker that rewrites strings. Every pattern,
 * built-in or custom, runs on re2js (RE2's automata in plain JavaScript), whose matching time is linear in the
 * text whatever the pattern: a pathological custom rule such as `(a+)+b` cannot stall ingestion as it would on
 * a backtracking engine. RE2 refuses what it cannot run in linear time (backreferences, lookaround), so such a
 * rule is refused when it is saved.
 *
 * Linear is not cheap: RE2's simulation advances every live thread of the compiled program at each character,
 * so a counted repetition such as `\w{1000}` keeps about a thousand threads alive on a run of letters and costs
 * seconds per 100 KB. A custom rule is therefore also refused when it is saved if it runs too long: when its
 * program is larger than twice the largest built-in detector's (a deterministic bound on the threads), or when
 * masking the probe texts with it takes more than PROBE_BUDGET_FACTOR times what the slowest built-in detector
 * (apiKey) takes on them, measured side by side at that moment so that a loaded machine slows both.
 */

import { performance } from "node:perf_hooks";
import type { schemas } from "@pharos/contract";
import { RE2JS } from "re2js";
import type { ErrorDetail } from "../../errors.ts";

export type MaskingRule = schemas.MaskingRule;
export type Detector = MaskingRule["detector"];

export const DEFAULT_PLACEHOLDERS: Record<Detector, string> = {
  email: "[EMAIL]",
  phone: "[PHONE]",
  creditCard: "[CREDIT_CARD]",
  apiKey: "[API_KEY]",
  regex: "[REDACTED]",
};

/** The patterns of the built-in detectors (RE2 syntax). */
const BUILT_IN_PATTERNS: Record<Exclude<Detector, "regex">, string> = {
  email: String.raw`[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}`,
  // A leading + (E.164, with or without separators), or groups of digits split by separators or parentheses:
  // a bare run of digits is an id, an amount or a timestamp far more often than a phone number.
  phone: String.raw`\+\d{1,3}[ .\-]?(?:\(\d{1,4}\)[ .\-]?)?\d{2,4}(?:[ .\-]?\d{2,4}){1,3}\b|(?:\(\d{2,4}\)[ .\-]?|\b\d{3}[ .\-])\d{3,4}[ .\-]\d{4}\b`,
  // Candidates only: 13 to 19 digits, optionally grouped by single spaces or dashes; the Luhn check decides.
  creditCard: String.raw`\b\d(?:[ \-]?\d){12,18}\b`,
  apiKey: [
    String.raw`\bsk-(?:proj-|ant-)?[A-Za-z0-9_\-]{20,}`,
    String.raw`\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}`,
    String.raw`\bghp_[A-Za-z0-9]{36}\b`,
    String.raw`\bgithub_pat_[A-Za-z0-9_]{22,}`,
    String.raw`\bxox[abprs]-[A-Za-z0-9\-]{10,}`,
    String.raw`\bAKIA[0-9A-Z]{16}\b`,
    String.raw`\bAIza[0-9A-Za-z_\-]{35}`,
    String.raw`\bphk_[0-9A-Z]{26}_[A-Za-z0-9_\-]{43}`,
    String.raw`\bBearer\s+[A-Za-z0-9._~+/\-]{20,}=*`,
  ].join("|"),
};

/** A custom pattern's compiled program may have this many RE2 instructions at most. */
export const MAX_PROGRAM_SIZE =
  2 * Math.max(...Object.values(BUILT_IN_PATTERNS).map((pattern) => RE2JS.compile(pattern).programSize()));

/** A custom rule may take this many times what the slowest built-in detector takes on the probe texts. */
export const PROBE_BUDGET_FACTOR = 5;
/** Timings per save, at most: a rule over budget in one of them may have met a pause, not its own cost. */
const PROBE_ATTEMPTS = 3;
const PROBE_LENGTH = 8000;

/** A deterministic stand-in for random printable ASCII (the probes must be the same on every save). */
function printableAscii(length: number): string {
  let state = 1;
  let text = "";
  for (let at = 0; at < length; at += 1) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    text += String.fromCharCode(32 + (state % 95));
  }
  return text;
}

/**
 * The worst cases a rule is timed on: runs of one character class each (where counted repetitions keep the
 * most threads alive), random printable ASCII, non-ASCII letters, and text dense with what the detectors mask.
 */
const PROBE_TEXTS = [
  "a".repeat(PROBE_LENGTH),
  "7".repeat(PROBE_LENGTH),
  " ".repeat(PROBE_LENGTH),
  printableAscii(PROBE_LENGTH),
  "é中".repeat(PROBE_LENGTH / 2),
  "mail ada@example.com, call +1 415-555-0100, card 4111 1111 1111 1111, key sk-proj-abcdefghijklmnopqrstuvwx; "
    .repeat(PROBE_LENGTH / 50)
    .slice(0, PROBE_LENGTH),
];

/** Milliseconds `masker` takes over the probe texts; stops early once past `stopAfterMs`. */
function probeMs(masker: Masker, stopAfterMs = Number.POSITIVE_INFINITY): number {
  const started = performance.now();
  for (const text of PROBE_TEXTS) {
    masker.mask(text);
    if (performance.now() - started > stopAfterMs) break;
  }
  return performance.now() - started;
}

/**
 * The reference a custom rule is timed against: the API-key detector, the costliest built-in on the probes
 * (about 5 times the others), kept warm from one save to the next.
 */
let referenceMasker: Masker | undefined;

/**
 * Undefined when the rule runs within budget, else what it cost and what it was allowed (ms). Both sides are
 * timed warm, as ingestion runs them (maskers are cached): RE2's DFA builds its states on a first pass.
 */
async function overBudget(rule: MaskingRule): Promise<{ costMs: number; budgetMs: number } | undefined> {
  if (referenceMasker === undefined) {
    referenceMasker = new Masker([{ detector: "apiKey" }]);
    probeMs(referenceMasker);
  }
  const reference = referenceMasker;
  const masker = new Masker([rule]);
  let last: { costMs: number; budgetMs: number } | undefined;
  for (let attempt = 0; attempt < PROBE_ATTEMPTS; attempt += 1) {
    await yieldToEventLoop();
    const budgetMs = PROBE_BUDGET_FACTOR * probeMs(reference);
    if (attempt === 0) probeMs(masker, 2 * budgetMs);
    const costMs = probeMs(masker, budgetMs);
    if (costMs <= budgetMs) return undefined;
    last = { costMs, budgetMs };
  }
  return last;
}

/** Luhn's checksum, which every payment card number satisfies (and ~9 in 10 random digit strings do not). */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let at = 0; at < digits.length; at += 1) {
    let digit = digits.charCodeAt(digits.length - 1 - at) - 48;
    if (at % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return digits.length > 0 && sum % 10 === 0;
}

const placeholderOf = (rule: MaskingRule) => rule.placeholder ?? DEFAULT_PLACEHOLDERS[rule.detector];

/** Compiles a custom pattern, or says why it cannot be used. */
function compilePattern(pattern: string): { ok: true; regex: RE2JS } | { ok: false; issue: string } {
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(pattern);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, issue: `is not a regular expression the linear-time engine (RE2 syntax) accepts: ${reason}` };
  }
  // A pattern that matches nothing at all would put a placeholder between every two characters.
  if (regex.matches("")) return { ok: false, issue: "must not match the empty string" };
  return { ok: true, regex };
}

/** Lets the event loop serve other requests between timings: a save may time several rules. */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Checks rules about to be saved; every problem is one detail under `field`. */
export async function checkMaskingRules(rules: readonly MaskingRule[], field: string): Promise<ErrorDetail[]> {
  const issues: ErrorDetail[] = [];
  for (const [index, rule] of rules.entries()) {
    const issue = await ruleIssue(rule);
    if (issue !== undefined) issues.push({ field: `${field}.${index}.pattern`, issue });
  }
  return issues;
}

async function ruleIssue(rule: MaskingRule): Promise<string | undefined> {
  if (rule.detector !== "regex") return rule.pattern === undefined ? undefined : `is only for "regex" rules`;
  if (rule.pattern === undefined) return `is required for a "regex" rule`;
  const compiled = compilePattern(rule.pattern);
  if (!compiled.ok) return compiled.issue;
  const size = compiled.regex.programSize();
  if (size > MAX_PROGRAM_SIZE) {
    return `runs too long: it compiles to ${size} RE2 instructions, more than ${MAX_PROGRAM_SIZE} (twice the largest built-in detector); write large counted repetitions such as {1000} with a smaller bound`;
  }
  const slow = await overBudget(rule);
  if (slow === undefined) return undefined;
  return `runs too long: masking the probe texts took ${slow.costMs.toFixed(0)} ms, more than ${PROBE_BUDGET_FACTOR} times the slowest built-in detector (${slow.budgetMs.toFixed(0)} ms allowed)`;
}

/** The rules as a project shows them: each with its placeholder spelled out. */
export const withPlaceholders = (rules: readonly MaskingRule[]): MaskingRule[] =>
  rules.map((rule) => ({ ...rule, placeholder: placeholderOf(rule) }));

interface CompiledRule {
  pattern: string;
  regex: RE2JS;
  placeholder: string;
  /** Whether a match is masked (the Luhn check of card numbers); all are when absent. */
  accept?: (match: string) => boolean;
}

/** Rewrites strings by a project's rules, in their order. */
export class Masker {
  readonly #rules: CompiledRule[];
  /**
   * Every rule's pattern in one alternation: one scan tells whether a string needs any rule at all. Undefined
   * when the alternation is beyond RE2's program size (each rule alone compiles): then each rule scans.
   */
  readonly #any: RE2JS | undefined;

  constructor(rules: readonly MaskingRule[]) {
    this.#rules = rules.map((rule) => {
      const placeholder = placeholderOf(rule);
      if (rule.detector === "regex") {
        const compiled = compilePattern(rule.pattern as string);
        // Rules are checked when saved; one that no longer compiles (a stored row edited by hand) must not let
        // text through unmasked, so it masks everything it is given.
        if (!compiled.ok) return { pattern: "(?s).+", regex: RE2JS.compile("(?s).+"), placeholder };
        return { pattern: rule.pattern as string, regex: compiled.regex, placeholder };
      }
      const pattern = BUILT_IN_PATTERNS[rule.detector];
      const regex = RE2JS.compile(pattern);
      if (rule.detector === "creditCard") {
        return { pattern, regex, placeholder, accept: (match: string) => passesLuhn(match.replace(/[ -]/g, "")) };
      }
      return { pattern, regex, placeholder };
    });
    try {
      this.#any = RE2JS.compile(this.#rules.map((rule) => `(?:${rule.pattern})`).join("|"));
    } catch {
      this.#any = undefined;
    }
  }

  /** `text` with every match of every rule replaced by the rule's placeholder. */
  mask(text: string): string {
    // test() runs RE2's DFA without capture bookkeeping: most strings match no rule and stop here.
    if (text.length === 0 || this.#any?.test(text) === false) return text;
    let masked = text;
    for (const rule of this.#rules) {
      if (masked.length === 0 || !rule.regex.test(masked)) continue;
      masked = replaceMatches(masked, rule);
    }
    return masked;
  }
}

function replaceMatches(text: string, rule: CompiledRule): string {
  const matcher = rule.regex.matcher(text);
  let out = "";
  let copiedUpTo = 0;
  while (matcher.find()) {
    const start = matcher.start();
    const end = matcher.end();
    // A pattern may match an empty string somewhere (`\b`) though not the empty text: such matches mask nothing.
    if (end === start) continue;
    if (rule.accept && !rule.accept(text.slice(start, end))) continue;
    out += text.slice(copiedUpTo, start) + rule.placeholder;
    copiedUpTo = end;
  }
  return copiedUpTo === 0 ? text : out + text.slice(copiedUpTo);
}

/** Compiled maskers by the JSON text of their rules: compiling is far costlier than a lookup. */
const compiledMaskers = new Map<string, Masker>();
const MAX_COMPILED_MASKERS = 1000;

/** The masker of a project's stored rules (JSON text), or undefined when it has none. */
export function maskerOf(storedRules: string): Masker | undefined {
  if (storedRules === "[]") return undefined;
  let masker = compiledMaskers.get(storedRules);
  if (masker === undefined) {
    masker = new Masker(JSON.parse(storedRules) as MaskingRule[]);
    if (compiledMaskers.size >= MAX_COMPILED_MASKERS) {
      compiledMaskers.delete(compiledMaskers.keys().next().value as string);
    }
    compiledMaskers.set(storedRules, masker);
  }
  return masker;
}
