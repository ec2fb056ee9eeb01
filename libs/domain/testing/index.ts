// Test helpers shared by every project's tests (certificates minted in memory, ClientHellos read
// back). Never imported by production code: it is a separate entry point, `@certkeeper/domain/testing`.
export * from './mint';
export * from './parse-client-hello';
