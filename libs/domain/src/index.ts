// Pure TypeScript shared by the API and the scanner agent: no Nest, no TypeORM, no network.
export * from './expiry';
export * from './fingerprint';
export * from './cron';
export * from './scanner-presence';
export * from './x509';
export * from './scanner-protocol';
export * from './saml';
export * from './tls';
export * from './concurrency';
export * from './alert-bucket';
export * from './alert-policy';
export * from './notification-events';
export * from './tags';
export * from './templates';
export * from './trust';
export * from './configuration/environment-reader';
export * from './discovery';
