import { useSearchParams } from 'react-router';

/** Rows per page of every big list: one page costs the same whatever the total (100,000 endpoints). */
export const PAGE_SIZE = 50;

export interface ListAddress {
  params: URLSearchParams;
  /** The page shown, from 0. */
  page: number;
  /** The offset of that page, for the API's `offset`. */
  offset: number;
  /**
   * Changes filters in the address: '' or null removes one, an array repeats it. Any change other
   * than the page itself goes back to the first page.
   */
  update: (changes: Record<string, string | string[] | null>) => void;
}

/**
 * A list's filters and page, kept in the address so a filtered list can be bookmarked, shared and
 * returned to with Back.
 */
export function useListAddress(): ListAddress {
  const [params, setParams] = useSearchParams();
  const page = Math.max(0, Number.parseInt(params.get('page') ?? '0', 10) || 0);
  const update = (changes: Record<string, string | string[] | null>) => {
    const next = new URLSearchParams(params);
    for (const [name, value] of Object.entries(changes)) {
      next.delete(name);
      if (Array.isArray(value)) for (const item of value) next.append(name, item);
      else if (value !== null && value !== '') next.set(name, value);
    }
    if (!('page' in changes)) next.delete('page');
    setParams(next);
  };
  return { params, page, offset: page * PAGE_SIZE, update };
}

/** A yes/no filter from the address: true, false, or undefined (no filter) for anything else. */
export function parseBool(value: string | null): boolean | undefined {
  return value === 'true' ? true : value === 'false' ? false : undefined;
}

/** "Endpoints 51–100 of 1,234" for the page shown; `rows` is how many the page holds. */
export function rangeText(noun: string, page: number, rows: number, total: number): string {
  const first = page * PAGE_SIZE + 1;
  return `${noun} ${first}–${first + rows - 1} of ${total}`;
}

/** Previous and next page, and where this page stands; nothing when one page holds everything. */
export function Pager({ page, total, onPage }: { page: number; total: number; onPage: (page: number) => void }) {
  const lastPage = Math.max(0, Math.ceil(total / PAGE_SIZE) - 1);
  if (total <= PAGE_SIZE) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={page === 0} onClick={() => onPage(page - 1)}>
        Previous page
      </button>
      <span>
        Page {page + 1} of {lastPage + 1}
      </span>
      <button type="button" disabled={page >= lastPage} onClick={() => onPage(page + 1)}>
        Next page
      </button>
    </nav>
  );
}
