/** The filter fields several lists share, each worded and built once. */

export type EndpointType = 'host' | 'saml' | 'manual';
const ENDPOINT_TYPES: EndpointType[] = ['host', 'saml', 'manual'];

/** The endpoint type an address parameter names, or undefined for any other value. */
export const endpointTypeOf = (param: string | null): EndpointType | undefined => ENDPOINT_TYPES.find((candidate) => candidate === param);

/** Tags to filter by, typed comma-separated; the page splits them (splitList) when the form is applied. */
export function TagsFilter({ id, value, onChange }: { id: string; value: string; onChange: (value: string) => void }) {
  return (
    <div className="field">
      <label htmlFor={id}>Tags</label>
      <input id={id} placeholder="env:prod, team:web" value={value} onChange={(e) => onChange(e.target.value)} />
    </div>
  );
}

/**
 * A choice applied at once: "Any" (the empty value) first, then `options` as [value, label]
 * pairs. `value` is the one shown; undefined or empty shows Any.
 */
export function SelectFilter({
  id,
  label,
  value,
  options,
  onChange,
}: {
  id: string;
  label: string;
  value: string | undefined;
  options: readonly (readonly [value: string, label: string])[];
  onChange: (value: string) => void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value ?? ''} onChange={(e) => onChange(e.target.value)}>
        <option value="">Any</option>
        {options.map(([optionValue, optionLabel]) => (
          <option key={optionValue} value={optionValue}>
            {optionLabel}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The endpoint types as SelectFilter options. */
export const ENDPOINT_TYPE_OPTIONS = [
  ['host', 'Host'],
  ['saml', 'SAML'],
  ['manual', 'Manual'],
] as const;

/** A number of days from 0 to 3650 (the API's bounds for an expiry window). */
export function DaysFilter({
  id,
  label,
  value,
  onChange,
  required = false,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  /** Required: the list has no meaning without a window; otherwise empty means any. */
  required?: boolean;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="number"
        inputMode="numeric"
        min={0}
        max={3650}
        {...(required ? { required: true } : { step: 1, placeholder: 'Any' })}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    </div>
  );
}
