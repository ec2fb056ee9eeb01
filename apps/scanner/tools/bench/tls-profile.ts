import { profileTls, type TlsProfileResult } from '../../src/probes/tls-profile';
import {
  type Credentials,
  type LocalServer,
  privateKeyPem,
  recordFigure,
  startNodeTlsServer,
  startOpensslServer,
} from '@certkeeper/net/testing';
import { generateKeyPair, mintCertificate } from '@certkeeper/domain/testing';

/**
 * The TLS profile's cost on loopback: connections and wall time per host, for a modern server
 * (Node: TLS 1.2 and 1.3, 6 suites) and a legacy one (openssl s_server: TLS 1.0 to 1.3, about 40
 * suites). Medians of BENCH_RUNS runs (default 5), after one warm-up run. Reports, never asserts.
 *
 * Beside the connections it prints their floor: a ServerHello names one suite at one version, so
 * a profile that reports only what servers said needs a connection per (version, suite) pair it
 * lists, and one refusal per version probed (the one that ends a supported version's list, or
 * says a version is not supported). The legacy server's target is that floor
 * (docs/performance.md, "The TLS profile").
 */

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];

const MODERN_CIPHERS = [
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'TLS_AES_128_GCM_SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

// A "compatible" configuration of the kind old appliances ship: ECDHE, DHE and RSA key exchange
// with AES, ChaCha20 and CAMELLIA-128. 37 suites for TLS 1.2 (11 of them also for 1.0 and 1.1),
// 3 for TLS 1.3: 40 in all.
const LEGACY_CIPHERS = 'ECDHE+aRSA:DHE+aRSA:kRSA:!PSK:!SRP:!ARIA:!CCM:!CAMELLIA256:@SECLEVEL=0';
const LEGACY_ARGS = ['-min_protocol', 'TLSv1', '-cipher', LEGACY_CIPHERS, '-serverpref'];

interface Case {
  name: string;
  /** `floor`: the pairs the server accepts plus one refusal per version probed. */
  targets: { connections: number | 'floor'; ms: number };
  server: LocalServer;
}

async function measureCase(item: Case): Promise<string> {
  const target = { host: '127.0.0.1', port: item.server.port, serverName: 'leaf.example.com' };
  await profileTls(target); // warm-up: JIT, the server's first-connection costs
  const runs: TlsProfileResult[] = [];
  for (let run = 0; run < RUNS; run += 1) runs.push(await profileTls(target));
  const failed = runs.find((result) => result.profile === null);
  if (failed) throw new Error(`${item.name}: ${failed.error}`);

  const connections = median(runs.map((result) => result.connections));
  const ms = median(runs.map((result) => result.durationMs));
  const probed = runs[0].profile!.versions;
  const versions = probed.filter((entry) => entry.supported);
  const suites = new Set(versions.flatMap((entry) => entry.cipherSuites)).size;
  const perVersion = versions.map((entry) => `${entry.version} ${entry.cipherSuites.length}`).join(', ');
  const pairs = versions.reduce((sum, entry) => sum + entry.cipherSuites.length, 0);
  const floor = pairs + probed.length;
  const targetConnections = item.targets.connections === 'floor' ? floor : item.targets.connections;
  const verdict = connections <= targetConnections && ms < item.targets.ms ? 'met' : 'MISSED';
  recordFigure({
    row: `TLS profile, ${item.name} server`,
    measured: `${connections} connections, ${ms} ms (floor ${floor}: ${pairs} version-suite pairs, ${probed.length} refusals)`,
    target: item.targets.connections === 'floor' ? `<= ${floor} connections (the floor)` : `<= ${targetConnections} connections`,
    met: connections <= targetConnections,
  });
  return [
    `  ${item.name.padEnd(8)} ${String(connections).padStart(4)} connections ${String(ms).padStart(6)} ms`,
    `   targets ≤ ${targetConnections} and < ${item.targets.ms} ms: ${verdict}`,
    `   (floor ${floor}: one per version-suite pair and one refusal per version probed; ${suites} distinct suites: ${perVersion};`,
    ` all runs ${runs.map((result) => result.durationMs).join(', ')} ms)`,
  ].join('');
}

async function rsaCredentials(): Promise<Credentials> {
  const minted = await mintCertificate({ keys: await generateKeyPair('rsa-2048'), sans: ['leaf.example.com'] });
  return { certPem: minted.pem, keyPem: await privateKeyPem(minted.keys.privateKey) };
}

async function main(): Promise<void> {
  const credentials = await rsaCredentials();
  const modern = await startNodeTlsServer({
    cert: credentials.certPem,
    key: credentials.keyPem,
    minVersion: 'TLSv1.2',
    ciphers: MODERN_CIPHERS,
    honorCipherOrder: true,
  });
  const legacy = await startOpensslServer(credentials, LEGACY_ARGS);
  try {
    const lines = [
      await measureCase({ name: 'modern', targets: { connections: 20, ms: 300 }, server: modern }),
      await measureCase({ name: 'legacy', targets: { connections: 'floor', ms: 1000 }, server: legacy }),
    ];
    process.stdout.write(`\nTLS profile on loopback (${RUNS} runs, medians)\n${lines.join('\n')}\n`);
  } finally {
    await Promise.all([modern.close(), legacy.close()]);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
