import { FieldError, fieldProps, type Problems } from '../../ui/form-problems';

/** What to send for a write-only secret: undefined keeps the stored one, "" clears it, text replaces it. */
export function secretToSend(typed: string, clear: boolean): string | undefined {
  if (clear) return '';
  return typed === '' ? undefined : typed;
}

/**
 * A write-only secret (mail password, OIDC client secret): the API never returns it, only whether
 * one is stored. Empty keeps it; typing replaces it; the checkbox clears it.
 */
export function SecretField<F extends string>({
  idPrefix,
  field,
  label,
  isSet,
  value,
  clear,
  problems,
  onChange,
  onClearChange,
}: {
  idPrefix: string;
  field: F;
  label: string;
  isSet: boolean;
  value: string;
  clear: boolean;
  problems: Problems<F>;
  onChange: (value: string) => void;
  onClearChange: (clear: boolean) => void;
}) {
  const noteId = `${idPrefix}-${field}-note`;
  const props = fieldProps(idPrefix, field, problems);
  return (
    <>
      <label htmlFor={props.id}>{label}</label>
      <p className="muted hint" id={noteId}>
        {isSet ? 'A value is set; it is never shown. Leave empty to keep it, or type a new one.' : 'None is set.'}
      </p>
      <input
        {...props}
        aria-describedby={[noteId, props['aria-describedby']].filter(Boolean).join(' ')}
        type="password"
        autoComplete="new-password"
        value={value}
        disabled={clear}
        onChange={(event) => onChange(event.target.value)}
      />
      <FieldError idPrefix={idPrefix} field={field} problems={problems} />
      {isSet && (
        <div className="checkbox">
          <input
            id={`${idPrefix}-${field}-clear`}
            type="checkbox"
            checked={clear}
            onChange={(event) => onClearChange(event.target.checked)}
          />
          <label htmlFor={`${idPrefix}-${field}-clear`}>Clear the stored {label.toLowerCase()}</label>
        </div>
      )}
    </>
  );
}

/** A check box with its label after it. */
export function Checkbox({
  id,
  label,
  checked,
  onChange,
}: {
  id: string;
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  return (
    <div className="checkbox">
      <input id={id} type="checkbox" checked={checked} onChange={(event) => onChange(event.target.checked)} />
      <label htmlFor={id}>{label}</label>
    </div>
  );
}
