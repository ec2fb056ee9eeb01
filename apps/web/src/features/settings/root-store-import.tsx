import { useState, type FormEvent } from 'react';
import { api, type Schemas } from '../../api/client';
import { checkedProblems, FieldError, fieldProps, GeneralProblem, noProblems, splitProblems, type Problems } from '../../ui/form-problems';
import { useAction } from '../../ui/use-action';

type ImportResult = Schemas['RootStoreImportResultDto'];
const FIELDS = ['matrix', 'pems'] as const;
type Field = (typeof FIELDS)[number];
const ID = 'root-import';

// The route's limits (README, "Root stores"): checked here so that a person is told before a long upload.
const MAX_FILE_BYTES = 10 * 1024 * 1024;
const MAX_FILES = 48;
const MAX_TOTAL_BYTES = 64 * 1024 * 1024;

const STORES: { key: 'mozilla' | 'apple' | 'microsoft' | 'chrome'; name: string }[] = [
  { key: 'mozilla', name: 'Mozilla' },
  { key: 'apple', name: 'Apple' },
  { key: 'microsoft', name: 'Microsoft' },
  { key: 'chrome', name: 'Google Chrome' },
];

/** The problems of the picked files that the API would refuse anyway, before anything is sent. */
export function importFileProblems(matrix: File | null, pems: readonly File[]): Partial<Record<Field, string | null>> {
  const tooBig = [matrix, ...pems].find((file) => file !== null && file.size > MAX_FILE_BYTES);
  const total = [matrix, ...pems].reduce((sum, file) => sum + (file?.size ?? 0), 0);
  return {
    matrix:
      matrix === null
        ? 'Pick the all-included-roots CSV (AllIncludedRootCertsCSV).'
        : tooBig === matrix
          ? `${matrix.name} is over 10 MiB.`
          : null,
    pems:
      pems.length === 0
        ? 'Pick at least one PEM report holding the roots the CSV lists.'
        : pems.length + 1 > MAX_FILES
          ? `At most ${MAX_FILES - 1} PEM reports in one import; ${pems.length} are picked.`
          : tooBig && tooBig !== matrix
            ? `${tooBig.name} is over 10 MiB: use the per-year reports (AllCertificatePEMsCSVFormat?NotBeforeYear=<year>).`
            : total > MAX_TOTAL_BYTES
              ? 'The files come to more than 64 MiB in all.'
              : null,
  };
}

/**
 * POST /api/v1/root-stores/import (settings:edit): for an install without internet access, the
 * CCADB files downloaded elsewhere, applied all or nothing like the nightly refresh.
 */
export function RootStoreImport({ onImported }: { onImported: () => void }) {
  const [matrix, setMatrix] = useState<File | null>(null);
  const [pems, setPems] = useState<File[]>([]);
  const [result, setResult] = useState<ImportResult | null>(null);
  const [checked, setChecked] = useState<Problems<Field> | null>(null);
  const upload = useAction();
  // The API's 400 sentences name no form field by its name: each is shown above the button as it came.
  const problems = checked ?? (upload.error ? splitProblems(upload.error, FIELDS) : noProblems<Field>());

  async function submit(event: FormEvent) {
    event.preventDefault();
    setResult(null);
    const found = checkedProblems(importFileProblems(matrix, pems));
    setChecked(found);
    if (found || matrix === null) {
      upload.clearError();
      return;
    }
    const form = new FormData();
    form.append('matrix', matrix, matrix.name);
    for (const file of pems) form.append('pems', file, file.name);
    await upload.run(
      // The generated type describes the multipart fields; the browser sends the FormData with its boundary.
      () => api.POST('/api/v1/root-stores/import', { body: { matrix: '', pems: [] }, bodySerializer: () => form }),
      (answer) => {
        setResult(answer);
        onImported();
      },
    );
  }

  return (
    <form className="card form" aria-labelledby={`${ID}-heading`} onSubmit={(event) => void submit(event)} noValidate>
      <h2 id={`${ID}-heading`}>Import from files</h2>
      <p className="muted">
        Without internet access: download CCADB&apos;s all-included-roots CSV and the PEM reports elsewhere and pick them here. Nothing
        changes unless the reports hold every root the CSV lists. Each file at most 10 MiB, 64 MiB in all.
      </p>
      <label htmlFor={`${ID}-matrix`}>Roots CSV (AllIncludedRootCertsCSV)</label>
      <input
        {...fieldProps(ID, 'matrix', problems)}
        type="file"
        accept=".csv,text/csv"
        onChange={(event) => setMatrix(event.target.files?.[0] ?? null)}
      />
      <FieldError idPrefix={ID} field="matrix" problems={problems} />
      <label htmlFor={`${ID}-pems`}>PEM reports (one or more files)</label>
      <input
        {...fieldProps(ID, 'pems', problems)}
        type="file"
        multiple
        accept=".csv,.pem,.txt"
        onChange={(event) => setPems([...(event.target.files ?? [])])}
      />
      <FieldError idPrefix={ID} field="pems" problems={problems} />
      <GeneralProblem problems={problems} />
      <div className="actions">
        <button type="submit" className="primary" disabled={upload.busy}>
          {upload.busy ? 'Importing…' : 'Import root stores'}
        </button>
      </div>
      {result && (
        <div role="status">
          <p>Imported. Anchors per store now:</p>
          <ul aria-label="Anchors per store">
            {STORES.map((store) => (
              <li key={store.key}>
                {store.name}: {result[store.key]}
              </li>
            ))}
          </ul>
          <p className="muted">
            {result.skippedRows} CSV {result.skippedRows === 1 ? 'row' : 'rows'} skipped for lack of a SHA-256 fingerprint;{' '}
            {result.evaluated} {result.evaluated === 1 ? 'certificate' : 'certificates'} re-evaluated, {result.changed}{' '}
            {result.changed === 1 ? 'verdict' : 'verdicts'} changed.
          </p>
        </div>
      )}
    </form>
  );
}
