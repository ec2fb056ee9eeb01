import { useAction } from './use-action';
import type { ApiResult } from './use-api-query';
import { attachmentName, saveBlob } from './csv-download';

/**
 * "Download CSV" for a list the API exports (docs/api-contract.md section 11, CSV exports): the
 * screen passes a call asking its route for `format: 'csv'` with its current filters (and no
 * paging, so the file holds every matching row); the file is named as the API proposes, else
 * `certkeeper-<list>-<date>.csv`. The one home of this button on every list.
 */
export function CsvButton({ list, fetchCsv }: { list: string; fetchCsv: () => Promise<ApiResult<Blob>> }) {
  const download = useAction();
  const run = () => {
    let answer: Response | undefined;
    const fallback = `certkeeper-${list}-${new Date().toISOString().slice(0, 10)}.csv`;
    return download.run(
      async () => {
        const result = await fetchCsv();
        answer = result.response;
        return result;
      },
      (blob) => saveBlob(blob, answer ? attachmentName(answer, fallback) : fallback),
    );
  };
  return (
    <>
      <button type="button" disabled={download.busy} onClick={() => void run()}>
        {download.busy ? 'Preparing CSV…' : 'Download CSV'}
      </button>
      {download.error && (
        <span className="error" role="alert">
          {download.error}
        </span>
      )}
    </>
  );
}
