export * from './crl';
export * from './ocsp';
