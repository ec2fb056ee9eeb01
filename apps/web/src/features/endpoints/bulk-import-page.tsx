import { useState, type ChangeEvent } from 'react';
import { Link } from 'react-router';
import { api, errorMessage, unreachable, type Schemas } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { useTitle } from '../../ui/layout';
import { batches, CsvProblem, EXPECTED_HEADER, parseCsv, toImportRows, type ImportRow } from './bulk-import-csv';
import './bulk-import.css';

interface RowOutcome {
  line: number;
  name: string;
  /** The created endpoint's id, or null when the API refused the row. */
  endpointId: string | null;
  error: string | null;
}

interface Progress {
  total: number;
  outcomes: RowOutcome[];
  /** The API's sentence when a whole request failed; the rows after it were not sent. */
  stopped: string | null;
  running: boolean;
}

/**
 * Bulk import (endpoints:edit): the browser reads the CSV file, checks its header, and sends the
 * rows to POST /api/v1/endpoints/bulk in batches, showing progress and, per line, the endpoint
 * created or the API's sentence for the refused row.
 */
export function BulkImportPage() {
  useTitle('Import endpoints');
  const { can } = useAuth();
  const [file, setFile] = useState<{ name: string; rows: ImportRow[]; skipped: string[] } | null>(null);
  const [fileProblem, setFileProblem] = useState<string | null>(null);
  const [progress, setProgress] = useState<Progress | null>(null);

  if (!can('endpoints:edit'))
    return (
      <>
        <h1>Import endpoints</h1>
        <p role="alert">Your role may not create endpoints, so it cannot import them.</p>
        <p>
          <Link to="/endpoints">← Endpoints</Link>
        </p>
      </>
    );

  async function pick(event: ChangeEvent<HTMLInputElement>) {
    const picked = event.target.files?.[0];
    setFile(null);
    setFileProblem(null);
    setProgress(null);
    if (!picked) return;
    try {
      setFile({ name: picked.name, ...toImportRows(parseCsv(await picked.text())) });
    } catch (caught) {
      setFileProblem(caught instanceof CsvProblem ? caught.message : `The file could not be read (${String(caught)}).`);
    }
  }

  async function start(rows: ImportRow[]) {
    let outcomes: RowOutcome[] = [];
    setProgress({ total: rows.length, outcomes, stopped: null, running: true });
    for (const batch of batches(rows)) {
      let stopped: string | null = null;
      try {
        const { data, error, response } = await api.POST('/api/v1/endpoints/bulk', { body: batch.map((row) => row.record) });
        if (data) outcomes = [...outcomes, ...outcomesOf(batch, data.results)];
        else stopped = errorMessage(error, response);
      } catch (caught) {
        stopped = unreachable(caught);
      }
      setProgress({ total: rows.length, outcomes, stopped, running: stopped === null });
      if (stopped !== null) return;
    }
    setProgress({ total: rows.length, outcomes, stopped: null, running: false });
  }

  return (
    <div className="bulk-import">
      <p>
        <Link to="/endpoints">← Endpoints</Link>
      </p>
      <h1>Import endpoints</h1>
      <section aria-labelledby="format-heading">
        <h2 id="format-heading">File format</h2>
        <p>
          A CSV file (RFC 4180, UTF-8) whose first line names the columns, in any order; only <code>name</code> is required. The columns:
        </p>
        <pre className="mono expected-header">{EXPECTED_HEADER}</pre>
        <p className="muted">
          <code>type</code> is host (the default), saml or manual. Host lines need <code>dnsName</code> (port 443 by default), SAML lines{' '}
          <code>metadataUrl</code>. <code>starttls</code> (host lines) is empty for implicit TLS or one of smtp, imap, pop3, ftp, ldap,
          postgres and xmpp. <code>enabled</code> and <code>scanExempt</code> take true or false; <code>tags</code> holds several tags
          separated by semicolons. An empty cell leaves the field to its default. A file from Download CSV on the endpoint list imports as
          it is: the columns the server sets (id, dates, scan state) are skipped.
        </p>
      </section>

      <div className="card form">
        <label htmlFor="import-file">CSV file</label>
        <input
          id="import-file"
          type="file"
          accept=".csv,text/csv"
          aria-describedby={fileProblem ? 'import-file-error' : undefined}
          aria-invalid={fileProblem ? true : undefined}
          disabled={progress?.running}
          onChange={(event) => void pick(event)}
        />
        {fileProblem && (
          <p className="error field-error" id="import-file-error" role="alert">
            {fileProblem}
          </p>
        )}
        {file && (
          <>
            <p>
              {file.rows.length} {file.rows.length === 1 ? 'endpoint' : 'endpoints'} read from {file.name}.
            </p>
            {file.skipped.length > 0 && <p className="muted">Skipped the columns the server sets itself: {file.skipped.join(', ')}.</p>}
            <div className="actions">
              <button type="button" className="primary" disabled={progress !== null} onClick={() => void start(file.rows)}>
                Import {file.rows.length} {file.rows.length === 1 ? 'endpoint' : 'endpoints'}
              </button>
            </div>
          </>
        )}
      </div>

      {progress && <ImportProgress progress={progress} />}
    </div>
  );
}

/** The API's answer for one batch, each row tied back to its line of the file. */
function outcomesOf(batch: ImportRow[], results: Schemas['BulkRowResultDto'][]): RowOutcome[] {
  return results.map((result) => {
    const row = batch[result.index];
    return {
      line: row.line,
      name: row.record.name ?? '',
      endpointId: result.ok ? (result.endpoint?.id ?? null) : null,
      error: result.ok ? null : (result.error ?? `Refused (${result.status}).`),
    };
  });
}

function ImportProgress({ progress }: { progress: Progress }) {
  const done = progress.outcomes.length;
  const refused = progress.outcomes.filter((outcome) => outcome.error !== null);
  const created = progress.outcomes.filter((outcome) => outcome.error === null);
  const summary = progress.running
    ? `Imported ${done} of ${progress.total} lines…`
    : progress.stopped
      ? `Import stopped after ${done} of ${progress.total} lines: ${created.length} created, ${refused.length} refused.`
      : `Import finished: ${created.length} created, ${refused.length} refused.`;
  return (
    <section aria-labelledby="progress-heading">
      <h2 id="progress-heading">Progress</h2>
      <progress id="import-progress" max={progress.total} value={done} aria-label="Lines imported" />
      <p role="status">{summary}</p>
      {progress.stopped && (
        <p className="error" role="alert">
          {progress.stopped} The lines after line {progress.outcomes.at(-1)?.line ?? 1} were not sent.
        </p>
      )}
      {refused.length > 0 && (
        <>
          <h3>Refused lines</h3>
          <div className="table-scroll">
            <table className="import-results">
              <thead>
                <tr>
                  <th scope="col">Line</th>
                  <th scope="col">Name</th>
                  <th scope="col">Why</th>
                </tr>
              </thead>
              <tbody>
                {refused.map((outcome) => (
                  <tr key={outcome.line}>
                    <td>{outcome.line}</td>
                    <td>{outcome.name}</td>
                    <td className="error pre">{outcome.error}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      {created.length > 0 && <CreatedRows rows={created} />}
    </section>
  );
}

/** The created endpoints, rendered only when opened: an import may hold thousands. */
function CreatedRows({ rows }: { rows: RowOutcome[] }) {
  const [open, setOpen] = useState(false);
  return (
    <details onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>Created endpoints ({rows.length})</summary>
      {open && (
        <div className="table-scroll">
          <table className="import-results">
            <thead>
              <tr>
                <th scope="col">Line</th>
                <th scope="col">Endpoint</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((outcome) => (
                <tr key={outcome.line}>
                  <td>{outcome.line}</td>
                  <td>{outcome.endpointId ? <Link to={`/endpoints/${outcome.endpointId}`}>{outcome.name}</Link> : outcome.name}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </details>
  );
}
