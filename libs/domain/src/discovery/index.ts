export * from './hostnames';
export * from './ranges';
