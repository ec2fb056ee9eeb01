export * from './crl';
