// Test support for every project's tests and the benchmarks: loopback TLS servers (Node's,
// `openssl s_server`, Java's JSSE for 3DES, a tarpit, scripted ClientHello answers), the guard the probe tests use, an
// ACME server answering renewal information, and the benchmarks' figure recorder.
// The entry point `@certkeeper/net/testing`. It lives outside src/ on purpose: the api and scanner
// builds (tools/build.js, the Dockerfiles) compile libs/*/src only, so no image ships it, and lint
// refuses it in production code (eslint.config.mjs); `node tools/build.js all` compiles it for the
// benchmarks.
export * from './local-servers';
export * from './jsse-server';
export * from './outbound-guard';
export * from './loopback-servers';
export * from './bench-figures';
export * from './acme-server';
export * from './http-receivers';
