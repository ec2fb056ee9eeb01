export * from './rotation';
export * from './renewal-events';
