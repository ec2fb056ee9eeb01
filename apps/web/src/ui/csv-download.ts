/**
 * Saving a CSV answer of the API. The token lives in sessionStorage, not in a cookie, so a plain
 * link to the CSV route would be unauthenticated: the screen fetches it (with the Authorization
 * header, through the typed client) and hands the body to the browser through a Blob URL.
 */

/** The file name the API proposes in Content-Disposition, else the fallback. */
export function attachmentName(response: Response, fallback: string): string {
  const disposition = response.headers.get('Content-Disposition') ?? '';
  const match = /filename="([^"]+)"/.exec(disposition) ?? /filename=([^;]+)/.exec(disposition);
  return match ? match[1].trim() : fallback;
}

/** Offers the blob to the browser as a download named `fileName`. */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has taken its copy once the click's task is done.
  window.setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** A list route's request for its CSV form: the screen's filters with `format: 'csv'` and no paging, the body read as a Blob. */
export function csvRequest<Q extends object>(query: Q) {
  return { params: { query: { ...query, format: 'csv' as const } }, headers: { Accept: 'text/csv' }, parseAs: 'blob' as const };
}
