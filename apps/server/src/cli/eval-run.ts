/**
 * The `eval run` command's definition (see eval-gate.ts for what it does). The gate and the SDK load only when
 * the command runs, so the other commands start no slower for it.
 */
import type { Command } from "./cli.ts";

export const DEFAULT_POLL_MS = 1000;
/** How long the gate waits for its run by default: 30 minutes, under a typical CI job's own limit. */
export const DEFAULT_TIMEOUT_SECONDS = 1800;

export const EVAL_RUN_COMMAND: Command = {
  synopsis:
    "eval run --prompt <id> [--deployment <id> | --draft] [--evaluator <id>] [--baseline <runId>] [--min-pass-rate <0..1>] [--max-regressions <n>] [--timeout <seconds>]",
  summary: "Run an evaluation on a Pharos server and fail (exit 1) when it misses a threshold: a CI gate",
  details: [
    "Talks to the server at --url (default PHAROS_URL, else http://127.0.0.1:8080) with the key in PHAROS_API_KEY.",
    "--prompt <id>          the prompt to evaluate (required)",
    "--deployment <id>      evaluate this deployment of the prompt; --draft (the default) evaluates its draft",
    "--evaluator <id>       the evaluator (default: the prompt's only active one)",
    "--baseline <runId>     compare with this completed run of the same dataset (regressions: pass → fail)",
    "--min-pass-rate <r>    fail when the run's pass rate (pass ÷ results) is under r, from 0 to 1",
    "--max-regressions <n>  fail when more than n rows regressed from the baseline (needs --baseline)",
    `--poll-interval <ms>   how often to read the run's progress (default ${DEFAULT_POLL_MS})`,
    `--timeout <seconds>    fail (exit 1) and cancel the run when it has not finished by then (default ${DEFAULT_TIMEOUT_SECONDS})`,
    "Prints a summary table (JSON with --json) on stdout, a progress bar on a terminal's stderr.",
    "Exit codes: 0 passed, 1 a threshold missed or the run failed, 2 bad arguments.",
  ],
  options: {
    prompt: { type: "string" },
    deployment: { type: "string" },
    draft: { type: "boolean" },
    evaluator: { type: "string" },
    baseline: { type: "string" },
    "min-pass-rate": { type: "string" },
    "max-regressions": { type: "string" },
    "poll-interval": { type: "string" },
    timeout: { type: "string" },
    url: { type: "string" },
  },
  runAlone: async (run) => (await import("./eval-gate.ts")).evalRun(run),
};
