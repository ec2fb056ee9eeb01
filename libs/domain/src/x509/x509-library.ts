// @peculiar/x509 registers its algorithms with tsyringe, which refuses to load unless a Reflect
// metadata polyfill is installed. The API loads one for Nest; the scanner agent and the domain's own
// tests do not. Import @peculiar/x509 through this module only, so the polyfill always comes first.
import 'reflect-metadata';

export * as x509 from '@peculiar/x509';
