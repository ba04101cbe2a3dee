import { type ReactNode, useId } from 'react';

/**
 * A labelled form control: the label beside the control, not around it, so the control's name is the
 * label alone (a label around a field would add the field's value or chosen option to its name).
 */
export function Field({ label, children }: { label: string; children: (id: string) => ReactNode }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(id)}
    </div>
  );
}
