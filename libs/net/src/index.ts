// Node-only network utilities shared by the API and the agent; pure code stays in libs/domain.
export * from './outbound-deny';
export * from './outbound-guard';
export * from './bounded-fetch';
