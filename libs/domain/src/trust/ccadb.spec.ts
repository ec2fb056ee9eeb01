import { mintCertificate, pemBundle } from '../../testing';
import { parseCertificates } from '../x509/parse-certificates';
import { anchorsFromPemReports, CcadbFormatError, parseCcadbRoots } from './ccadb';

const ISRG_ROOT_X1 = '96bcec06264976f37460779acf28c5a7cfe8a3c0aae11a8ffcee05c0bddf08c6';
const EXAMPLE_ROOT = 'ab'.repeat(32);
const NO_TRUST_BITS_ROOT = '0123456789abcdef'.repeat(4);
const EMAIL_ONLY_ROOT = 'ef'.repeat(32);

/** The colon-separated upper-case form CCADB and browsers display. */
const withColons = (hex: string) => hex.toUpperCase().match(/../g)?.join(':') ?? '';

const HEADER =
  '"Salesforce Record ID","Apple Status","Apple Trust Bits","Certificate Name","Microsoft EKUs","Microsoft Status",' +
  '"CA Owner","Google Chrome Status","Mozilla Trust Bits","SHA-256 Fingerprint","Mozilla Status","Valid To (GMT)"';

/** Shaped like CCADB's AllIncludedRootCertsCSV: BOM, CRLF, every field quoted, columns in their own order. */
const REPORT = [
  `\uFEFF${HEADER}`,
  '"001o000000HshFQAAZ","Included","clientAuth;codeSigning;emailProtection;ipsecEndSystem;serverAuth;timeStamping","ISRG Root X1",' +
    `"Client Authentication;Server Authentication","Included","Internet Security Research Group","Included","Websites","${ISRG_ROOT_X1}","Included","2035.06.04"`,
  // Comma and line break inside quoted names; Mozilla and Apple include it for e-mail only.
  `"001o000000AbCdEAAZ","Included","clientAuth;emailProtection","Example Root CA - G2\r\n(2019 edition)","Secure Email;Server Authentication",` +
    `"Included","Example Trust Services, Inc.","Not Included","Email","${withColons(EXAMPLE_ROOT)}","Included","2044.01.01"`,
  // Empty trust bits state no restriction; statuses are compared trimmed and case-insensitively.
  `"001o000000XyZwVAAZ"," included ","","Legacy Root","","Disabled","Legacy CA","","","${NO_TRUST_BITS_ROOT}","INCLUDED","2030.12.31"`,
  `"001o000000EmAiLAAZ","Included","emailProtection","Mail Root","Secure Email","Included","Mail CA","Not Included","Email","${EMAIL_ONLY_ROOT}","Included","2040.01.01"`,
  '"001o000000BaDfPAAZ","Included","serverAuth","Broken Row","","Included","Somebody","Included","Websites","not-a-fingerprint","Included",""',
  // A SHA-1 fingerprint is not what the column promises.
  `"001o000000ShA1aAAZ","Included","serverAuth","SHA-1 Row","","Included","Somebody","Included","Websites","${'12'.repeat(20)}","Included",""`,
  '',
].join('\r\n');

describe('parseCcadbRoots', () => {
  it('reads each store’s TLS roots by column name, whatever the column order', () => {
    const { roots, skippedRows } = parseCcadbRoots(REPORT);
    expect(roots).toEqual([
      {
        fingerprint: ISRG_ROOT_X1,
        caOwner: 'Internet Security Research Group',
        name: 'ISRG Root X1',
        stores: ['mozilla', 'apple', 'microsoft', 'chrome'],
      },
      {
        fingerprint: EXAMPLE_ROOT,
        caOwner: 'Example Trust Services, Inc.',
        name: 'Example Root CA - G2\r\n(2019 edition)',
        stores: ['microsoft'],
      },
      { fingerprint: NO_TRUST_BITS_ROOT, caOwner: 'Legacy CA', name: 'Legacy Root', stores: ['mozilla', 'apple'] },
    ]);
    expect(skippedRows).toBe(2);
  });

  it.each([
    ['Mozilla', 'Mozilla Status', 'Mozilla Trust Bits', 'Email;Websites', 'Email', 'mozilla'],
    ['Apple', 'Apple Status', 'Apple Trust Bits', 'clientAuth;serverAuth', 'clientAuth;codeSigning', 'apple'],
    [
      'Microsoft',
      'Microsoft Status',
      'Microsoft EKUs',
      'Client Authentication;Server Authentication',
      'Client Authentication',
      'microsoft',
    ],
  ])(
    '%s: included only with server authentication among the purposes',
    (_, statusColumn, purposesColumn, withServerAuth, without, store) => {
      const report = (status: string, purposes: string) =>
        [
          `SHA-256 Fingerprint,Mozilla Status,Apple Status,Google Chrome Status,Microsoft Status,${purposesColumn}`,
          [
            ISRG_ROOT_X1,
            ...['Mozilla Status', 'Apple Status', 'Google Chrome Status', 'Microsoft Status'].map((column) =>
              column === statusColumn ? status : '',
            ),
            `"${purposes}"`,
          ].join(','),
        ].join('\n');
      const stores = (status: string, purposes: string) => parseCcadbRoots(report(status, purposes)).roots.flatMap((root) => root.stores);
      expect(stores('Included', withServerAuth)).toEqual([store]);
      expect(stores('Included', without)).toEqual([]);
      expect(stores('Included', '')).toEqual([store]);
      expect(stores('Not Included', withServerAuth)).toEqual([]);
      expect(stores('Removed', withServerAuth)).toEqual([]);
    },
  );

  it('Chrome: included by status alone', () => {
    const report = `SHA-256 Fingerprint,Mozilla Status,Apple Status,Google Chrome Status,Microsoft Status\n${ISRG_ROOT_X1},,,Included,\n${EXAMPLE_ROOT},,,Not Included,\n`;
    expect(parseCcadbRoots(report).roots).toEqual([{ fingerprint: ISRG_ROOT_X1, caOwner: '', name: '', stores: ['chrome'] }]);
  });

  it('does not take a purpose for part of another one', () => {
    const report = `SHA-256 Fingerprint,Mozilla Status,Mozilla Trust Bits,Apple Status,Google Chrome Status,Microsoft Status\n${ISRG_ROOT_X1},Included,NotWebsites;Email,,,\n`;
    expect(parseCcadbRoots(report).roots).toEqual([]);
  });

  it('merges the stores of a fingerprint listed twice', () => {
    const report = [
      'SHA-256 Fingerprint,Certificate Name,Mozilla Status,Apple Status,Google Chrome Status,Microsoft Status',
      `${ISRG_ROOT_X1},First,Included,,,`,
      `${withColons(ISRG_ROOT_X1)},Second,,,Included,`,
    ].join('\n');
    expect(parseCcadbRoots(report).roots).toEqual([
      { fingerprint: ISRG_ROOT_X1, caOwner: '', name: 'First', stores: ['mozilla', 'chrome'] },
    ]);
  });

  it('names every missing required column when CCADB renames or drops them', () => {
    const renamed = REPORT.replace('"Google Chrome Status"', '"Chrome Status"').replace('"Apple Status",', '');
    expect(() => parseCcadbRoots(renamed)).toThrow(CcadbFormatError);
    expect(() => parseCcadbRoots(renamed)).toThrow("'Apple Status', 'Google Chrome Status'");
    expect(() => parseCcadbRoots('')).toThrow(
      /'SHA-256 Fingerprint', 'Mozilla Status', 'Apple Status', 'Microsoft Status', 'Google Chrome Status'/,
    );
  });

  it('matches header names case-insensitively and ignores the optional columns when absent', () => {
    const report = `sha-256 fingerprint,MOZILLA STATUS,apple status,Google Chrome status,Microsoft status\n${ISRG_ROOT_X1},Included,,,\n`;
    expect(parseCcadbRoots(report).roots).toEqual([{ fingerprint: ISRG_ROOT_X1, caOwner: '', name: '', stores: ['mozilla'] }]);
  });

  it('reports a truncated download as a format error', () => {
    expect(() => parseCcadbRoots(REPORT.slice(0, REPORT.indexOf('(2019')))).toThrow(CcadbFormatError);
  });
});

describe('anchorsFromPemReports', () => {
  it('keeps the wanted roots from every report and lists the ones not found', async () => {
    const [first, second, unwanted] = await Promise.all(
      ['CN=First Root', 'CN=Second Root', 'CN=Unwanted Root'].map((subject) => mintCertificate({ subject, ca: true })),
    );
    const fingerprint = (pem: string) => parseCertificates(pem).certificates[0]?.fingerprintSha256 ?? '';
    const absent = 'cd'.repeat(32);
    const wanted = new Set([fingerprint(first.pem), fingerprint(second.pem), absent]);
    // Reports carry text around the blocks (CSV cells, comments) and blocks that do not parse.
    const reports = [
      `"First Root","'${first.pem.trim()}'"\n"Unwanted","'${unwanted.pem.trim()}'"\n`,
      `# Second\n${pemBundle(second)}-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n`,
    ];
    const { anchors, missing } = anchorsFromPemReports(reports, wanted);
    expect([...anchors.keys()].sort()).toEqual([fingerprint(first.pem), fingerprint(second.pem)].sort());
    expect(anchors.get(fingerprint(second.pem))?.subject).toBe('CN=Second Root');
    expect(missing).toEqual([absent]);
  });

  it('reports every wanted root missing when the reports hold nothing', () => {
    const wanted = new Set([ISRG_ROOT_X1]);
    expect(anchorsFromPemReports([], wanted)).toEqual({ anchors: new Map(), missing: [ISRG_ROOT_X1] });
    expect(anchorsFromPemReports(['<html>Service unavailable</html>'], wanted).missing).toEqual([ISRG_ROOT_X1]);
  });
});
