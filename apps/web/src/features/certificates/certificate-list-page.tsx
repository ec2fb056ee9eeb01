import { useState, type FormEvent } from 'react';
import { Link, useLocation } from 'react-router';
import { api } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { CsvButton } from '../../ui/csv-button';
import { csvRequest } from '../../ui/csv-download';
import { DateTime, DaysRemaining } from '../../ui/expiry';
import { LoadError, useTitle } from '../../ui/layout';
import { PAGE_SIZE, Pager, parseBool, rangeText, useListAddress } from '../../ui/paged-list';
import { useApiQuery } from '../../ui/use-api-query';
import '../../ui/card-table.css';
import { CertificateUpload } from './certificate-upload';
import { trustSummary } from './trust';

/** The yes/no filters of GET /api/v1/certificates, as the address and the route name them. */
const FLAGS = [
  { name: 'expired', label: 'Expiry', yes: 'Expired', no: 'Not expired' },
  { name: 'isCa', label: 'Kind', yes: 'CA certificates', no: 'Leaf certificates' },
  { name: 'selfSigned', label: 'Self-signed', yes: 'Self-signed', no: 'Issued by another' },
] as const;
type Flag = (typeof FLAGS)[number]['name'];

/**
 * Which certificates the list holds, as the address's `show` names it. By default those in use
 * on an endpoint (`inUse=true`): the bundled trust anchors, over a hundred, would otherwise bury
 * the ones an operator runs. The others are asked for.
 */
const SHOWS = [
  { value: 'in-use', label: 'In use on an endpoint', query: { inUse: true } },
  { value: 'no-anchors', label: 'All but trust anchors', query: { anchors: false } },
  { value: 'all', label: 'All, with trust anchors', query: {} },
] as const;

/**
 * GET /api/v1/certificates, soonest expiry first: free text (fingerprint prefix, common name or
 * SAN) and the yes/no filters, one page of 50 at a time with X-Total-Count for the total. The
 * filters and the page live in the address, so a search can be bookmarked and Back returns to it.
 */
export function CertificateListPage() {
  useTitle('Certificates');
  const { can } = useAuth();
  const { params, page, offset, update } = useListAddress();
  const q = params.get('q') ?? '';
  const flag = (name: Flag) => parseBool(params.get(name));
  const show = SHOWS.find((candidate) => candidate.value === params.get('show')) ?? SHOWS[0];
  const [search, setSearch] = useState(q);
  // Set by the detail screen after a delete, so the person sees it happened.
  const deleted = (useLocation().state as { deleted?: string } | null)?.deleted;

  const filters = {
    q: q || undefined,
    expired: flag('expired'),
    isCa: flag('isCa'),
    selfSigned: flag('selfSigned'),
    ...show.query,
  };
  const { data, error, loading, response } = useApiQuery(params.toString(), () =>
    api.GET('/api/v1/certificates', {
      params: {
        query: { ...filters, limit: PAGE_SIZE, offset },
      },
    }),
  );

  const submitSearch = (event: FormEvent) => {
    event.preventDefault();
    update({ q: search.trim() });
  };

  const total = Number(response?.headers.get('X-Total-Count') ?? data?.length ?? 0);

  return (
    <>
      <div className="title-row">
        <h1>Certificates</h1>
        <div className="row-actions">
          {/* Every certificate the filters match, not just this page. */}
          <CsvButton list="certificates" fetchCsv={() => api.GET('/api/v1/certificates', csvRequest(filters))} />
        </div>
      </div>
      {deleted && <p role="status">Deleted {deleted}.</p>}
      <form className="filters" role="search" onSubmit={submitSearch}>
        <div className="field">
          <label htmlFor="certificate-q">Search</label>
          <input
            id="certificate-q"
            type="search"
            placeholder="Common name, SAN or fingerprint"
            value={search}
            onChange={(event) => setSearch(event.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="certificate-show">Show</label>
          <select
            id="certificate-show"
            value={show.value}
            onChange={(event) => update({ show: event.target.value === SHOWS[0].value ? null : event.target.value })}
          >
            {SHOWS.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </div>
        {FLAGS.map((filter) => (
          <div className="field" key={filter.name}>
            <label htmlFor={`certificate-${filter.name}`}>{filter.label}</label>
            <select
              id={`certificate-${filter.name}`}
              value={params.get(filter.name) ?? ''}
              onChange={(event) => update({ [filter.name]: event.target.value })}
            >
              <option value="">Any</option>
              <option value="true">{filter.yes}</option>
              <option value="false">{filter.no}</option>
            </select>
          </div>
        ))}
        <button type="submit">Search</button>
      </form>

      <LoadError message={error} />
      <p role="status" className="muted">
        {loading
          ? 'Loading…'
          : total === 0
            ? 'No certificate matches.'
            : `${rangeText('Certificates', page, data?.length ?? 0, total)}, soonest expiry first`}
      </p>

      {data && data.length > 0 && (
        <div className="table-scroll">
          <table className="card-table">
            <thead>
              <tr>
                <th scope="col">Subject CN</th>
                <th scope="col">Issuer</th>
                <th scope="col">Not after</th>
                <th scope="col">Days remaining</th>
                <th scope="col">Trust</th>
              </tr>
            </thead>
            <tbody>
              {data.map((certificate) => (
                <tr key={certificate.fingerprint}>
                  <td className="card-title">
                    <Link to={`/certificates/${certificate.fingerprint}`}>
                      {certificate.commonName ?? certificate.sans[0] ?? `${certificate.fingerprint.slice(0, 16)}…`}
                    </Link>
                  </td>
                  <td data-label="Issuer">{certificate.issuerCommonName ?? <span className="muted">no common name</span>}</td>
                  <td data-label="Not after">
                    <DateTime value={certificate.notAfter} />
                  </td>
                  <td data-label="Days remaining">
                    <DaysRemaining daysRemaining={certificate.daysRemaining} notAfter={certificate.notAfter} />
                  </td>
                  <td data-label="Trust">{trustSummary(certificate)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <Pager page={page} total={total} onPage={(next) => update({ page: String(next) })} />

      {can('certs:edit') && <CertificateUpload />}
    </>
  );
}
