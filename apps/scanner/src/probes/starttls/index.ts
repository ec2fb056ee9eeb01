import { ftpGoodbye, upgradeFtp } from './ftp';
import { imapGoodbye, upgradeImap } from './imap';
import { ldapGoodbye, upgradeLdap } from './ldap';
import { pop3Goodbye, upgradePop3 } from './pop3';
import { postgresGoodbye, upgradePostgres } from './postgres';
import { smtpGoodbye, upgradeSmtp } from './smtp';
import type { Goodbye, StarttlsProtocol, Upgrader } from './starttls';
import { upgradeXmpp, xmppGoodbye } from './xmpp';

export { type Goodbye, StarttlsError, STARTTLS_PROTOCOLS, type StarttlsProtocol, type UpgradeOptions, type Upgrader } from './starttls';

/** Each protocol's upgrade, by the endpoint's `starttls` value (docs/api-contract.md section 13). */
export const UPGRADERS: Record<StarttlsProtocol, Upgrader> = {
  smtp: upgradeSmtp,
  imap: upgradeImap,
  pop3: upgradePop3,
  ftp: upgradeFtp,
  ldap: upgradeLdap,
  postgres: upgradePostgres,
  xmpp: upgradeXmpp,
};

/** What each protocol says inside the TLS session before close_notify, so a scan ends as its clients' sessions do (docs/decisions/0013). */
export const GOODBYES: Record<StarttlsProtocol, Goodbye> = {
  smtp: smtpGoodbye,
  imap: imapGoodbye,
  pop3: pop3Goodbye,
  ftp: ftpGoodbye,
  ldap: ldapGoodbye,
  postgres: postgresGoodbye,
  xmpp: xmppGoodbye,
};
