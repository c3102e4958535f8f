/**
 * A labelled form field with its error under it: the page's own check before sending, or the API's field
 * error (`ApiError.fieldMessage(name)`). The input gets `aria-invalid` and `aria-describedby` when wrong.
 */
import type { ComponentChildren } from 'preact';

let counter = 0;
/** A stable-enough id for a label/input pair. */
export const fieldId = (name: string) => `f-${name}-${++counter}`;

export interface FieldProps {
  label: string;
  error?: string | null;
  hint?: string;
  /** Renders the control with the ids it must carry. */
  children: (props: { id: string; 'aria-invalid'?: 'true'; 'aria-describedby'?: string }) => ComponentChildren;
  id: string;
}

export function Field({ label, error, hint, children, id }: FieldProps) {
  const described = [error ? `${id}-error` : '', hint ? `${id}-hint` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class={`field${error ? ' field-invalid' : ''}`}>
      <label for={id}>{label}</label>
      {children({ id, 'aria-invalid': error ? 'true' : undefined, 'aria-describedby': described })}
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={`${id}-error`} role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
