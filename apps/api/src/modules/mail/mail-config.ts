export const TLS_MODES = ['none', 'starttls', 'tls'] as const;
export type TlsMode = (typeof TLS_MODES)[number];
export const SMTP_AUTH = ['none', 'plain', 'login'] as const;
export type SmtpAuth = (typeof SMTP_AUTH)[number];

/** The stored mail configuration; the password only ever sealed (see common/crypto/secret-box). */
export interface StoredMailConfig {
  enabled: boolean;
  host: string | null;
  port: number | null;
  tlsMode: TlsMode;
  auth: SmtpAuth;
  username: string | null;
  sealedPassword: string | null;
  fromAddress: string | null;
  fromName: string | null;
  /** Accept a self-signed or otherwise unverifiable SMTP server certificate (private relays). */
  allowInvalidCertificate: boolean;
}

/** What the mailer needs to connect, with the password opened. */
export interface SmtpSettings {
  host: string;
  port: number;
  tlsMode: TlsMode;
  auth: SmtpAuth;
  username: string | null;
  password: string | null;
  fromAddress: string;
  fromName: string | null;
  allowInvalidCertificate: boolean;
}

export const UNCONFIGURED_MAIL: StoredMailConfig = {
  enabled: false,
  host: null,
  port: null,
  tlsMode: 'starttls',
  auth: 'none',
  username: null,
  sealedPassword: null,
  fromAddress: null,
  fromName: null,
  allowInvalidCertificate: false,
};
