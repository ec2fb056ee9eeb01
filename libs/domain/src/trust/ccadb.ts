import { parseFingerprint } from '../fingerprint';
import { parseCertificates } from '../x509/parse-certificates';
import type { ParsedCertificate } from '../x509/types';
import { CsvSyntaxError, readCsv } from './csv';

/** The public root stores Certkeeper evaluates against, in the order verdicts list them. */
export const ROOT_STORE_IDS = ['mozilla', 'apple', 'microsoft', 'chrome'] as const;
export type RootStoreId = (typeof ROOT_STORE_IDS)[number];

/** One root of the CCADB all-included-roots report, with the stores that trust it for TLS servers. */
export interface CcadbRoot {
  /** SHA-256 of the DER, 64 lower-case hex digits. */
  fingerprint: string;
  /** '' when the report has no such column. */
  caOwner: string;
  name: string;
  /** Never empty; in ROOT_STORE_IDS order. */
  stores: RootStoreId[];
}

/** The report cannot be read: a required column is missing (CCADB renamed it) or the CSV is damaged. */
export class CcadbFormatError extends Error {
  override readonly name = 'CcadbFormatError';
}

const FINGERPRINT_COLUMN = 'SHA-256 Fingerprint';
const CA_OWNER_COLUMN = 'CA Owner';
const NAME_COLUMN = 'Certificate Name';

interface StoreRule {
  statusColumn: string;
  /**
   * The program's column of purposes and the token meaning "server authentication" in it. Chrome
   * has none: its root program only covers TLS server authentication.
   */
  purposes?: { column: string; serverAuth: string };
}

const STORE_RULES: Record<RootStoreId, StoreRule> = {
  mozilla: { statusColumn: 'Mozilla Status', purposes: { column: 'Mozilla Trust Bits', serverAuth: 'Websites' } },
  apple: { statusColumn: 'Apple Status', purposes: { column: 'Apple Trust Bits', serverAuth: 'serverAuth' } },
  microsoft: { statusColumn: 'Microsoft Status', purposes: { column: 'Microsoft EKUs', serverAuth: 'Server Authentication' } },
  chrome: { statusColumn: 'Google Chrome Status' },
};

const REQUIRED_COLUMNS = [FINGERPRINT_COLUMN, ...ROOT_STORE_IDS.map((store) => STORE_RULES[store].statusColumn)];

/** Reads one CSV row by column name; absent columns and short rows read as ''. */
type Cell = (column: string) => string;

/**
 * Reads the CCADB "all included root certificates" CSV into the roots each store includes for TLS
 * server authentication. Columns are found by header name (CCADB reorders them), compared
 * case-insensitively. A store includes a root when its status is 'Included' and, where the program
 * lists purposes, server authentication is among them; an empty purposes cell states no
 * restriction. Roots no store includes for TLS are left out. A fingerprint listed twice is one root
 * whose stores are merged. Rows whose fingerprint is not a SHA-256 are skipped and counted: one bad
 * row must not cost every store its anchors.
 *
 * @throws CcadbFormatError naming every missing required column, or when the CSV is damaged.
 */
export function parseCcadbRoots(csv: string): { roots: CcadbRoot[]; skippedRows: number } {
  const [header = [], ...rows] = readRows(csv);
  const columnIndex = indexColumns(header);
  const roots = new Map<string, CcadbRoot>();
  let skippedRows = 0;
  for (const row of rows) {
    const cell: Cell = (column) => (row[columnIndex.get(column.toLowerCase()) ?? -1] ?? '').trim();
    const fingerprint = parseFingerprint(cell(FINGERPRINT_COLUMN));
    if (fingerprint?.algorithm !== 'sha256') {
      skippedRows += 1;
      continue;
    }
    addRoot(roots, { fingerprint: fingerprint.hex, caOwner: cell(CA_OWNER_COLUMN), name: cell(NAME_COLUMN), stores: storesOf(cell) });
  }
  return { roots: [...roots.values()].filter((root) => root.stores.length > 0), skippedRows };
}

function readRows(csv: string): string[][] {
  try {
    return readCsv(csv);
  } catch (error) {
    if (error instanceof CsvSyntaxError) throw new CcadbFormatError(`The CCADB report is not valid CSV: ${error.message}`);
    throw error;
  }
}

/** Lower-cased header name -> position; the first of duplicate names wins. */
function indexColumns(header: string[]): Map<string, number> {
  const columnIndex = new Map<string, number>();
  header.forEach((name, index) => {
    const key = name.trim().toLowerCase();
    if (!columnIndex.has(key)) columnIndex.set(key, index);
  });
  const missing = REQUIRED_COLUMNS.filter((column) => !columnIndex.has(column.toLowerCase()));
  if (missing.length > 0) {
    throw new CcadbFormatError(`The CCADB report lacks the required column(s): ${missing.map((column) => `'${column}'`).join(', ')}.`);
  }
  return columnIndex;
}

function storesOf(cell: Cell): RootStoreId[] {
  return ROOT_STORE_IDS.filter((store) => includesForServerAuth(STORE_RULES[store], cell));
}

function includesForServerAuth(rule: StoreRule, cell: Cell): boolean {
  if (cell(rule.statusColumn).toLowerCase() !== 'included') return false;
  if (rule.purposes === undefined) return true;
  const purposes = cell(rule.purposes.column);
  return purposes === '' || listsPurpose(purposes, rule.purposes.serverAuth);
}

/** Purposes are ';'-separated ('Email;Websites'); whole tokens are compared so no purpose matches inside another. */
function listsPurpose(purposes: string, wanted: string): boolean {
  return purposes.split(/[;,\r\n]/).some((purpose) => purpose.trim().toLowerCase() === wanted.toLowerCase());
}

function addRoot(roots: Map<string, CcadbRoot>, root: CcadbRoot): void {
  const known = roots.get(root.fingerprint);
  if (known === undefined) {
    roots.set(root.fingerprint, root);
    return;
  }
  known.stores = ROOT_STORE_IDS.filter((store) => known.stores.includes(store) || root.stores.includes(store));
}

/**
 * Picks the wanted roots out of PEM reports (CCADB publishes the included roots as large PEM
 * texts). `wanted` holds SHA-256 fingerprints as parseCcadbRoots returns them (lower-case hex).
 * Unreadable blocks are ignored: what matters is which wanted roots were not found, listed in
 * `missing` (a partial download, or a report that lags behind the CSV).
 */
export function anchorsFromPemReports(
  reports: string[],
  wanted: Set<string>,
): { anchors: Map<string, ParsedCertificate>; missing: string[] } {
  const anchors = new Map<string, ParsedCertificate>();
  for (const report of reports) {
    // A report holds every included root, far above parseCertificates' default cap for uploads.
    for (const certificate of parseCertificates(report, { maxCertificates: Infinity }).certificates) {
      if (wanted.has(certificate.fingerprintSha256)) anchors.set(certificate.fingerprintSha256, certificate);
    }
  }
  return { anchors, missing: [...wanted].filter((fingerprint) => !anchors.has(fingerprint)) };
}
