export * from './ranges';
