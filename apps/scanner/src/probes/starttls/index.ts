import { upgradeFtp } from './ftp';
import { upgradeImap } from './imap';
import { upgradeLdap } from './ldap';
import { upgradePop3 } from './pop3';
import { upgradePostgres } from './postgres';
import { upgradeSmtp } from './smtp';
import type { StarttlsProtocol, Upgrader } from './starttls';
import { upgradeXmpp } from './xmpp';

export { StarttlsError, STARTTLS_PROTOCOLS, type StarttlsProtocol, type UpgradeOptions, type Upgrader } from './starttls';

/** Each protocol's upgrade, by the endpoint's `starttls` value (CONTRACT.md section 13). */
export const UPGRADERS: Record<StarttlsProtocol, Upgrader> = {
  smtp: upgradeSmtp,
  imap: upgradeImap,
  pop3: upgradePop3,
  ftp: upgradeFtp,
  ldap: upgradeLdap,
  postgres: upgradePostgres,
  xmpp: upgradeXmpp,
};
