/** Builders shared by the grading tests. */
import type { GradeDeps, RowOutcome } from "./grade.ts";

/** A row that succeeded with `output`, no measures and no variables unless given. */
export const row = (overrides: Partial<RowOutcome> = {}): RowOutcome => ({
  output: "",
  responseMessages: [],
  variables: {},
  cost: null,
  latencyMs: null,
  outputTokens: null,
  ...overrides,
});

/** For evaluators that must not call the judge. */
export const noJudge: GradeDeps = {
  judge: () => Promise.reject(new Error("the judge must not be called")),
};
