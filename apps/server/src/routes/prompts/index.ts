import createPrompt from "./create-prompt.ts";
import deletePrompt from "./delete-prompt.ts";
import getPrompt from "./get-prompt.ts";
import getPromptDraft from "./get-prompt-draft.ts";
import listPrompts from "./list-prompts.ts";
import runPrompt from "./run-prompt.ts";
import updatePrompt from "./update-prompt.ts";

/** The Prompts operations, in spec order. */
export const promptRoutes = [
  listPrompts,
  createPrompt,
  getPrompt,
  deletePrompt,
  updatePrompt,
  getPromptDraft,
  runPrompt,
];
