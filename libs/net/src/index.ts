// Node-only utilities shared by the API and the agent; pure code stays in libs/domain. The heap
// growth limit is imported by its own path, `@certkeeper/net/heap-growth`.
export * from './outbound-deny';
export * from './outbound-guard';
export * from './bounded-fetch';
export * from './kept-connections';
