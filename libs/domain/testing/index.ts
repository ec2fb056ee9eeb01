// Test helpers shared by every project's tests (certificates minted in memory). Never imported
// by production code: it is a separate entry point, `@certkeeper/domain/testing`.
export * from './mint';
