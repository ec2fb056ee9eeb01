import { BadRequestException } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { MAX_RESULTS_PER_POST } from '@certkeeper/domain/protocol';
import { compileAcceptance } from '../../common/validation/compiled-acceptance';
import { HostScanResultDto, ResultsRequestDto, SamlScanResultDto } from './scanner-protocol.dto';
import { checkResult, RESULT_RULES, ScanResultsPipe } from './scan-results.pipe';

const NOW = new Date('2026-06-01T12:00:00Z');
const RESULT_ID = '0b6f0c43-5e9a-4c1c-9d57-7b4a8a3f2e10';
const ENDPOINT_ID = '5d1c6b8e-2f4a-4e77-8a51-0c9e3b7d6f21';
const PEM = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';

const host = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  resultId: RESULT_ID,
  endpointId: ENDPOINT_ID,
  type: 'host',
  scannedAt: NOW.toISOString(),
  success: true,
  error: null,
  resolvedIp: '192.0.2.10',
  tlsVersion: 'TLSv1.3',
  cipherSuite: 'TLS_AES_128_GCM_SHA256',
  authorized: false,
  authorizationError: 'self-signed certificate',
  chain: [PEM],
  tlsProfile: null,
  ...overrides,
});

const saml = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  resultId: RESULT_ID,
  endpointId: ENDPOINT_ID,
  type: 'saml',
  scannedAt: NOW.toISOString(),
  success: true,
  error: null,
  finalUrl: 'https://idp.example.com/md',
  resolvedIp: '2001:db8::10',
  document: '<md:EntityDescriptor/>',
  digest: 'a'.repeat(64),
  ...overrides,
});

const profile = (overrides: Record<string, unknown> = {}) => ({
  versions: [{ version: 'TLSv1.3', supported: true, cipherSuites: ['TLS_AES_128_GCM_SHA256'] }],
  negotiatedVersion: 'TLSv1.3',
  negotiatedCipherSuite: 'TLS_AES_128_GCM_SHA256',
  ...overrides,
});

/** The reason a result is refused, or null when it passes. */
const problem = (raw: unknown) => {
  const checked = checkResult(raw, NOW);
  return checked.valid ? null : checked.error;
};

describe('checking a scan result', () => {
  it('passes well-formed results as instances of their DTO, with absent optional fields read as null and unknown ones dropped', () => {
    const hostResult = checkResult({ ...host({ tlsProfile: undefined }), fromANewerAgent: 1 }, NOW);
    expect(hostResult).toEqual({ valid: true, result: expect.any(HostScanResultDto) });
    expect(hostResult.valid && hostResult.result).toMatchObject({ tlsProfile: null });
    expect(hostResult.valid && 'fromANewerAgent' in hostResult.result).toBe(false);

    const samlResult = checkResult(saml({ resolvedIp: undefined }), NOW);
    expect(samlResult).toEqual({ valid: true, result: expect.any(SamlScanResultDto) });
    expect(samlResult.valid && samlResult.result.resolvedIp).toBeNull();

    expect(problem(host({ tlsProfile: profile() }))).toBeNull();
    expect(problem(host({ success: false, error: 'connection refused', chain: [], resolvedIp: null, tlsVersion: null }))).toBeNull();
    expect(problem(saml({ success: false, error: 'HTTP 500', document: null, digest: null, finalUrl: null }))).toBeNull();
    // An empty document is the parser's to judge (a failed scan), not a malformed result.
    expect(problem(saml({ document: '' }))).toBeNull();
    // Up to five minutes ahead of the API's clock.
    expect(problem(host({ scannedAt: new Date(NOW.getTime() + 4 * 60_000).toISOString() }))).toBeNull();
  });

  it.each<[string, unknown, string]>([
    ['not an object', 'garbage', 'a result must be a JSON object'],
    ['an array', [host()], 'a result must be a JSON object'],
    ['an unknown type', host({ type: 'smtp' }), 'type must be host or saml'],
    ['a resultId that is no UUID', host({ resultId: 'not-a-uuid' }), 'resultId must be a UUID'],
    ['an endpointId that is no UUID', host({ endpointId: 42 }), 'endpointId must be a UUID'],
    ['an unreadable scannedAt', host({ scannedAt: 'yesterday' }), 'scannedAt must be an ISO 8601 timestamp'],
    ['a scannedAt in the future', host({ scannedAt: new Date(NOW.getTime() + 6 * 60_000).toISOString() }), 'scannedAt is in the future'],
    ['a success that is no boolean', host({ success: 'yes' }), 'success must be a boolean'],
    ['an over-long error', host({ success: false, chain: [], error: 'x'.repeat(2001) }), 'error must be a string of at most 2000'],
    ['a failure without a reason', host({ success: false, chain: [], error: null }), 'a failed result must say why in error'],
    ['a failure with an empty reason', saml({ success: false, error: '' }), 'a failed result must say why in error'],
    ['a host resolvedIp that is a name', host({ resolvedIp: 'leaf.example.com' }), 'resolvedIp must be an IP address or null'],
    ['a missing host resolvedIp', host({ resolvedIp: undefined }), 'resolvedIp must be an IP address or null'],
    ['an unknown tlsVersion', host({ tlsVersion: 'TLSv9' }), 'tlsVersion must be one of SSLv3, TLSv1.0, TLSv1.1, TLSv1.2, TLSv1.3 or null'],
    ['an over-long cipherSuite', host({ cipherSuite: 'x'.repeat(201) }), 'cipherSuite must be a string or null'],
    ['an authorized that is no boolean', host({ authorized: 'no' }), 'authorized must be a boolean or null'],
    ['an authorizationError that is no string', host({ authorizationError: 1 }), 'authorizationError must be a string or null'],
    ['a chain that is no array', host({ chain: PEM }), 'chain must be an array of at most 20 PEM strings'],
    ['a chain of 21 certificates', host({ chain: Array.from({ length: 21 }, () => PEM) }), 'chain must be an array of at most 20'],
    ['a chain holding a number', host({ chain: [PEM, 7] }), 'chain must be an array of at most 20'],
    ['an over-long PEM', host({ chain: ['x'.repeat(64 * 1024 + 1)] }), 'chain must be an array of at most 20'],
    ['a success without a chain', host({ chain: [] }), 'a successful host result must carry the presented chain'],
    ['a tlsProfile that is no object', host({ tlsProfile: 'full' }), 'tlsProfile must be { versions'],
    ['a tlsProfile that is an array', host({ tlsProfile: [] }), 'tlsProfile must be { versions'],
    ['a tlsProfile without versions', host({ tlsProfile: profile({ versions: undefined }) }), 'tlsProfile.versions must be an array'],
    ['a tlsProfile version that is no object', host({ tlsProfile: profile({ versions: [[]] }) }), 'tlsProfile.versions must be an array'],
    [
      'a tlsProfile version of an unknown name',
      host({ tlsProfile: profile({ versions: [{ version: 'TLSv9', supported: true, cipherSuites: [] }] }) }),
      'tlsProfile.versions.0.version must be one of',
    ],
    [
      'a tlsProfile version without supported',
      host({ tlsProfile: profile({ versions: [{ version: 'TLSv1.2', cipherSuites: [] }] }) }),
      'tlsProfile.versions.0.supported must be a boolean',
    ],
    [
      'a tlsProfile version with 401 suites',
      host({ tlsProfile: profile({ versions: [{ version: 'TLSv1.2', supported: true, cipherSuites: Array(401).fill('S') }] }) }),
      'tlsProfile.versions.0.cipherSuites must be an array of at most 400',
    ],
    [
      'a tlsProfile suite name over 200 characters',
      host({ tlsProfile: profile({ versions: [{ version: 'TLSv1.2', supported: true, cipherSuites: ['S'.repeat(201)] }] }) }),
      'tlsProfile.versions.0.cipherSuites must be an array',
    ],
    ['an unknown negotiatedVersion', host({ tlsProfile: profile({ negotiatedVersion: 'QUIC' }) }), 'tlsProfile.negotiatedVersion must be'],
    [
      'an over-long negotiatedCipherSuite',
      host({ tlsProfile: profile({ negotiatedCipherSuite: 'x'.repeat(201) }) }),
      'tlsProfile.negotiatedCipherSuite must be a string or null',
    ],
    ['an over-long finalUrl', saml({ finalUrl: 'x'.repeat(4097) }), 'finalUrl must be a string or null'],
    ['a SAML resolvedIp that is a name', saml({ resolvedIp: 'idp.example.com' }), 'resolvedIp must be an IP address or null'],
    ['a document that is no string', saml({ document: { xml: true } }), 'document must be a string or null'],
    ['an over-long document', saml({ document: 'x'.repeat(32 * 1024 * 1024 + 1) }), 'document must be a string or null'],
    ['a success without a document', saml({ document: null }), 'a successful saml result must carry the document'],
    ['a digest that is no SHA-256', saml({ digest: 'abc' }), 'digest must be a SHA-256 hex string or null'],
  ])('refuses %s', (_label, raw, expected) => {
    expect(problem(raw)).toContain(expected);
  });

  it('names every malformed field, and the ids it could read for the outcome', () => {
    const checked = checkResult(host({ tlsVersion: 'TLSv9', resolvedIp: 'x', chain: 'y' }), NOW);
    expect(checked).toEqual({ valid: false, resultId: RESULT_ID, endpointId: ENDPOINT_ID, error: expect.any(String) });
    const reasons = checked.valid ? [] : checked.error.split('; ');
    expect(reasons).toHaveLength(3);
    expect(checkResult('garbage', NOW)).toMatchObject({ resultId: '', endpointId: '' });
  });
});

describe('ScanResultsPipe', () => {
  const pipe = new ScanResultsPipe({ now: () => NOW });

  it('checks each result on its own', () => {
    const checked = pipe.transform({ results: [host(), 'garbage', saml()] });
    expect(checked.map((c) => c.valid)).toEqual([true, false, true]);
  });

  it.each<[string, unknown, string]>([
    ['a body without results', {}, 'The body must be { "results": [ ... ] }.'],
    ['results that are no array', { results: 'x' }, 'The body must be { "results": [ ... ] }.'],
    ['a bare array', [host()], 'The body must be { "results": [ ... ] }.'],
    ['too many results', { results: Array(MAX_RESULTS_PER_POST + 1).fill(null) }, `At most ${MAX_RESULTS_PER_POST} results per request.`],
  ])('refuses the whole post for %s', (_label, body, expected) => {
    let thrown: unknown;
    try {
      pipe.transform(body);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(BadRequestException);
    expect((thrown as BadRequestException).getResponse()).toMatchObject({ message: [expected] });
  });
});

describe('the rules checkResult compiles', () => {
  /** A generator of the same pseudo-random sequence on every run (mulberry32). */
  const seeded = (seed: number) => () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const ABSENT = Symbol('absent');
  const VALUES: unknown[] = [
    ABSENT,
    null,
    '',
    'x',
    'x'.repeat(201),
    'x'.repeat(2001),
    0,
    1,
    true,
    false,
    {},
    [],
    [PEM],
    [PEM, 7],
    ['x'.repeat(64 * 1024 + 1)],
    Array.from({ length: 21 }, () => PEM),
    'not-a-uuid',
    RESULT_ID,
    '192.0.2.10',
    '2001:db8::1',
    'leaf.example.com',
    'TLSv1.2',
    'TLSv9',
    NOW.toISOString(),
    'yesterday',
    'host',
    'saml',
    'self-signed certificate',
    profile(),
  ];
  const FIELDS = [...Object.keys(host()), 'fromANewerAgent'];

  it('accept a host result exactly when class-validator does, as the instance plainToInstance gives', () => {
    const accepted = compileAcceptance(HostScanResultDto);
    const random = seeded(32);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    let acceptedCount = 0;
    for (let variant = 0; variant < 4000; variant += 1) {
      const raw = host();
      for (let change = Math.floor(random() * 3); change >= 0; change -= 1) {
        const value = pick(VALUES);
        const field = pick(FIELDS);
        if (value === ABSENT) delete raw[field];
        else raw[field] = value;
      }
      const reference = plainToInstance(HostScanResultDto, raw, { exposeDefaultValues: true });
      const valid = validateSync(reference, RESULT_RULES).length === 0;
      const compiled = accepted(raw);
      if (compiled) {
        acceptedCount += 1;
        expect({ raw, valid }).toEqual({ raw, valid: true });
        expect(compiled).toStrictEqual(reference);
      } else if (raw.tlsProfile === null || raw.tlsProfile === undefined) {
        // A present profile is nested: class-validator's to check, valid or not.
        expect({ raw, valid }).toEqual({ raw, valid: false });
      }
    }
    // The variants left unchanged, or changed to other valid values, take the compiled path.
    expect(acceptedCount).toBeGreaterThan(200);
  });

  it('accept an envelope exactly when class-validator does, leaving its results as they came', () => {
    const accepted = compileAcceptance(ResultsRequestDto);
    const results = [host(), 'garbage'];
    expect(accepted({ results })).toStrictEqual(plainToInstance(ResultsRequestDto, { results }));
    expect(accepted({ results })?.results).toBe(results);
    for (const refused of [undefined, 'x', {}, Array(MAX_RESULTS_PER_POST + 1).fill(null)]) {
      expect(validateSync(plainToInstance(ResultsRequestDto, { results: refused }))).not.toHaveLength(0);
      expect(accepted({ results: refused })).toBeNull();
    }
  });
});
