import { useState, type ReactNode } from 'react';

/** Copies a secret shown once; the text stays selectable for a browser without clipboard access. */
export function ShownOnce({
  id,
  label,
  copyLabel,
  value,
  note,
}: {
  id: string;
  label: string;
  copyLabel: string;
  value: string;
  note: string;
}) {
  const [copied, setCopied] = useState<string | null>(null);
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied');
    } catch {
      setCopied('Copying failed: select the text and copy it.');
    }
  }
  return (
    <div className="card">
      <p>{note}</p>
      <label htmlFor={`${id}-value`}>{label}</label>
      <input id={`${id}-value`} className="mono shown-once" readOnly value={value} onFocus={(event) => event.target.select()} />
      <div className="actions">
        <button type="button" onClick={() => void copy()}>
          {copyLabel}
        </button>
        <span role="status">{copied}</span>
      </div>
    </div>
  );
}

/**
 * An action that asks first: the button, then the question with “Yes, …” and Cancel in its place.
 * `confirming` is held by the caller so that at most one question is open in a list.
 */
export function ConfirmAction({
  label,
  accessibleLabel,
  question,
  confirmLabel,
  confirming,
  busy,
  onAsk,
  onCancel,
  onConfirm,
}: {
  label: string;
  accessibleLabel?: string;
  question: ReactNode;
  confirmLabel: string;
  confirming: boolean;
  busy: boolean;
  onAsk: () => void;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  if (!confirming)
    return (
      <button type="button" aria-label={accessibleLabel} onClick={onAsk}>
        {label}
      </button>
    );
  return (
    <>
      <span>{question} </span>
      <button type="button" disabled={busy} onClick={onConfirm}>
        {confirmLabel}
      </button>{' '}
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </>
  );
}
