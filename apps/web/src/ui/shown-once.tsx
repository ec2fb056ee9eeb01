import { useState, type ReactNode } from 'react';

/** A copy button with its outcome beside it; the text stays selectable for a browser without clipboard access. */
function CopyButton({ label, value }: { label: string; value: string }) {
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
    <div className="actions">
      <button type="button" onClick={() => void copy()}>
        {label}
      </button>
      <span role="status">{copied}</span>
    </div>
  );
}

/** Copies a secret shown once. */
export function ShownOnce({
  id,
  label,
  copyLabel,
  value,
  note,
  children,
}: {
  id: string;
  label: string;
  copyLabel: string;
  value: string;
  note: string;
  /** What to do with the secret, below it (a scanner's commands). */
  children?: ReactNode;
}) {
  return (
    <div className="card">
      <p>{note}</p>
      <label htmlFor={`${id}-value`}>{label}</label>
      <input id={`${id}-value`} className="mono shown-once" readOnly value={value} onFocus={(event) => event.target.select()} />
      <CopyButton label={copyLabel} value={value} />
      {children}
    </div>
  );
}

/** A command or other text to copy as a whole, in a read-only box that wraps instead of widening the page. */
export function CopyText({ id, label, copyLabel, value }: { id: string; label: string; copyLabel: string; value: string }) {
  return (
    <div className="copy-block">
      <label htmlFor={id}>{label}</label>
      <textarea id={id} className="mono copy-text" readOnly rows={3} value={value} onFocus={(event) => event.target.select()} />
      <CopyButton label={copyLabel} value={value} />
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
