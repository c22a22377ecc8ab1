/**
 * The code editors, loaded on first use: CodeMirror and the JSON Schema validator are a chunk of their own, so
 * signing in and reading traces never download them. Until the chunk arrives a field says it is loading.
 */
import { type ComponentProps, lazy, Suspense } from "react";

const loadEditors = () => import("./code-editors.tsx");
const LazyMessageEditor = lazy(() => loadEditors().then((module) => ({ default: module.MessageEditor })));
const LazyToolsEditor = lazy(() => loadEditors().then((module) => ({ default: module.ToolsEditor })));

type Props = ComponentProps<typeof LazyMessageEditor>;

const loading = <p className="hint">Loading the editor…</p>;

export function MessageEditor(props: Props) {
  return (
    <Suspense fallback={loading}>
      <LazyMessageEditor {...props} />
    </Suspense>
  );
}

export function ToolsEditor(props: Props) {
  return (
    <Suspense fallback={loading}>
      <LazyToolsEditor {...props} />
    </Suspense>
  );
}

/** The tools' parse and schema problems; loads the validator with the editors. */
export async function checkTools(text: string): Promise<string[]> {
  return (await loadEditors()).checkTools(text);
}
