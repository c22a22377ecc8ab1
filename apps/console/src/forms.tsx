/**
 * The form and table scaffolding the screens share: the API's refusal above a form, the one-field "name it and
 * add it" form, a form's submit and cancel buttons, and a grid table with its column heads.
 */
import { type FormEvent, type ReactNode, useState } from "react";
import { errorMessage } from "./api.ts";

/** The API's refusal (`{error: {message}}`), read out when it appears; nothing while there is none. */
export function ErrorAlert({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p role="alert" className="error">
      {errorMessage(error)}
    </p>
  );
}

/** A one-line form that adds something by name; `onSubmit` gets the trimmed name and a way to clear the field. */
export function NameForm({
  form,
  label,
  submit,
  maxLength,
  pending,
  error,
  onSubmit,
}: {
  form: string;
  label: string;
  submit: string;
  maxLength: number;
  pending: boolean;
  error: unknown;
  onSubmit: (name: string, clear: () => void) => void;
}) {
  const [name, setName] = useState("");
  function send(event: FormEvent) {
    event.preventDefault();
    onSubmit(name.trim(), () => setName(""));
  }
  return (
    <form className="inline" onSubmit={send} aria-label={form}>
      <label>
        {label} <input value={name} onChange={(event) => setName(event.target.value)} required maxLength={maxLength} />
      </label>
      <button type="submit" disabled={pending || name.trim() === ""}>
        {submit}
      </button>
      <ErrorAlert error={error} />
    </form>
  );
}

/** A form's submit button, and Cancel when the form can be closed. */
export function FormActions({
  submit,
  disabled,
  onCancel,
}: {
  submit: string;
  disabled: boolean;
  onCancel?: () => void;
}) {
  return (
    <div className="actions">
      <button type="submit" disabled={disabled}>
        {submit}
      </button>
      {onCancel && (
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      )}
    </div>
  );
}

/** A grid table named `label`; a column given as `false` is left out (an action column a key may not use). */
export function Grid({
  label,
  columns,
  children,
}: {
  label?: string;
  columns: (string | false)[];
  children: ReactNode;
}) {
  return (
    <table className="grid" aria-label={label}>
      <thead>
        <tr>
          {columns.map(
            (column) =>
              column !== false && (
                <th key={column} scope="col">
                  {column}
                </th>
              ),
          )}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}
