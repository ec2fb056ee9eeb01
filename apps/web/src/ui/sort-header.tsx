/**
 * A sortable column header of a list whose order is the API's `sort` parameter: a field name
 * sorts ascending, the same name with a leading `-` descending (docs/api-contract.md section 4).
 * The header carries `aria-sort` for the order shown; the button inside it asks for the other
 * direction when the column is already the order, else for this column ascending.
 */
export function SortHeader<F extends string>({
  label,
  field,
  sort,
  onSort,
}: {
  label: string;
  field: F;
  /** The order shown, e.g. 'name' or '-daysRemaining'. */
  sort: string;
  onSort: (sort: F | `-${F}`) => void;
}) {
  const direction = sort === field ? 'ascending' : sort === `-${field}` ? 'descending' : undefined;
  const next: F | `-${F}` = direction === 'ascending' ? `-${field}` : field;
  const arrow = direction === 'ascending' ? '▲' : direction === 'descending' ? '▼' : '';
  return (
    <th scope="col" aria-sort={direction ?? 'none'}>
      <button type="button" className="sort-button" onClick={() => onSort(next)}>
        {label}
        <span aria-hidden="true" className="sort-arrow">
          {arrow}
        </span>
      </button>
    </th>
  );
}
