/**
 * The prompt editor's CodeMirror 6 fields, in their own chunk (loaded lazily by editors.tsx, so the first load
 * stays small): message text with `{{variables}}` marked, and the tools as JSON checked against the contract's
 * PromptTool schema, with parse and schema errors in the editor's lint gutter.
 */

import toolsSchema from "virtual:prompt-tools-schema";
import { Validator } from "@cfworker/json-schema";
import { json, jsonParseLinter } from "@codemirror/lang-json";
import { type Diagnostic, linter, lintGutter } from "@codemirror/lint";
import { Decoration, EditorView, MatchDecorator, ViewPlugin, type ViewUpdate } from "@codemirror/view";
import CodeMirror from "@uiw/react-codemirror";
import { useMemo } from "react";
import { toolProblems } from "./tool-problems.ts";

/** The server's placeholder rule (services/prompts/template-variables.ts): 1–64 letters, digits, `_` or `-`. */
const PLACEHOLDER = /\{\{([A-Za-z0-9_-]{1,64})\}\}/g;

const variableMarks = new MatchDecorator({
  regexp: PLACEHOLDER,
  decoration: (match) =>
    Decoration.mark({ tagName: "mark", class: "variable", attributes: { title: `Variable ${match[1]}` } }),
});

const highlightVariables = ViewPlugin.fromClass(
  class {
    decorations;
    constructor(view: EditorView) {
      this.decorations = variableMarks.createDeco(view);
    }
    update(update: ViewUpdate) {
      this.decorations = variableMarks.updateDeco(update, this.decorations);
    }
  },
  { decorations: (plugin) => plugin.decorations },
);

/**
 * CodeMirror writes its styles into a <style> element, which the console's Content-Security-Policy admits only
 * with the page's nonce (served in the csp-nonce meta tag, fresh for each load).
 */
const styleNonce = EditorView.cspNonce.of(
  document.querySelector('meta[name="csp-nonce"]')?.getAttribute("content") ?? "",
);

interface FieldProps {
  /** The accessible name of the editable area. */
  label: string;
  value: string;
  readOnly: boolean;
  onChange: (value: string) => void;
}

/** Attributes of the editable area: its name, and read-only state said the way assistive technology reads it. */
const contentAttributes = (label: string, readOnly: boolean) =>
  EditorView.contentAttributes.of({ "aria-label": label, ...(readOnly && { "aria-readonly": "true" }) });

export function MessageEditor({ label, value, readOnly, onChange }: FieldProps) {
  const extensions = useMemo(
    () => [styleNonce, highlightVariables, EditorView.lineWrapping, contentAttributes(label, readOnly)],
    [label, readOnly],
  );
  return (
    <CodeMirror
      className="code-editor"
      value={value}
      readOnly={readOnly}
      onChange={onChange}
      extensions={extensions}
      basicSetup={{ lineNumbers: false, foldGutter: false, highlightActiveLine: false, autocompletion: false }}
    />
  );
}

const validator = new Validator(toolsSchema as never, "2020-12", false);

/** Schema problems of a parsed tools value, reported on the whole document (the message names the place). */
function schemaLinter(view: EditorView): Diagnostic[] {
  const text = view.state.doc.toString();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return []; // jsonParseLinter reports it, at its position.
  }
  return toolProblems(validator, parsed).map((message) => ({
    from: 0,
    to: text.length,
    severity: "error",
    message,
  }));
}

export function ToolsEditor({ label, value, readOnly, onChange }: FieldProps) {
  const extensions = useMemo(
    () => [
      styleNonce,
      json(),
      linter(jsonParseLinter()),
      linter(schemaLinter),
      lintGutter(),
      contentAttributes(label, readOnly),
    ],
    [label, readOnly],
  );
  return (
    <CodeMirror
      className="code-editor"
      value={value}
      readOnly={readOnly}
      onChange={onChange}
      extensions={extensions}
      basicSetup={{ foldGutter: false, highlightActiveLine: false }}
    />
  );
}

/** Parse and schema problems of the tools text, as sentences for the form (empty when the tools are valid). */
export function checkTools(text: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return [`Not JSON: ${(error as Error).message}`];
  }
  return toolProblems(validator, parsed);
}
