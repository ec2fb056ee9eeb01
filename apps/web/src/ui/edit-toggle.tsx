/**
 * A row's Edit button: opens the row's edit form below the table, or closes it when it is the one
 * open. Named after the row for screen readers, with aria-expanded saying whether its form is open.
 */
export function EditToggle({ name, open, onToggle }: { name: string; open: boolean; onToggle: () => void }) {
  return (
    <button type="button" aria-label={`Edit ${name}`} aria-expanded={open} onClick={onToggle}>
      Edit
    </button>
  );
}
