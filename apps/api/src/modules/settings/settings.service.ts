import { type AcmeCa, type AlertPolicy, DEFAULT_ACME_CAS, DEFAULT_ALERT_POLICY } from '@certkeeper/domain';
import { BadGatewayException, BadRequestException, Inject, Injectable, Logger, UnprocessableEntityException } from '@nestjs/common';
import { openSecret, sealSecret } from '../../common/crypto/secret-box';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { type ActorContext, AuditService } from '../audit/audit.service';
import { type SmtpSettings, type StoredMailConfig, UNCONFIGURED_MAIL } from '../mail/mail-config';
import { Mailer, SmtpDeliveryError } from '../mail/mailer';
import { DEFAULT_THRESHOLDS, type MailSettingsResponseDto, type UpdateAlertPolicyDto, type UpdateMailSettingsDto } from './settings.dto';
import { SettingsRepository } from './settings.repository';

const THRESHOLDS_KEY = 'alert_thresholds';
const MAIL_KEY = 'mail';
const ALERT_POLICY_KEY = 'alert_policy';
const ACME_CAS_KEY = 'acme_cas';

@Injectable()
export class SettingsService {
  private readonly logger = new Logger('Settings');
  private readonly alertPolicyListeners: ((policy: AlertPolicy) => Promise<unknown>)[] = [];

  constructor(
    private readonly settings: SettingsRepository,
    private readonly mailer: Mailer,
    private readonly audit: AuditService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Sorted descending; 30, 14, 7, 1 until configured. */
  async alertThresholds(): Promise<number[]> {
    return (await this.settings.read<number[]>(THRESHOLDS_KEY)) ?? DEFAULT_THRESHOLDS;
  }

  /** The stored policy over its defaults, so a policy saved before a field existed reads that field's default. */
  async alertPolicy(): Promise<AlertPolicy> {
    return { ...DEFAULT_ALERT_POLICY, ...((await this.settings.read<Partial<AlertPolicy>>(ALERT_POLICY_KEY)) ?? {}) };
  }

  /**
   * The policy with the fields given replaced (docs/api-contract.md section 15); the whole policy
   * is stored and audited, then what was derived from it is brought up to date (`onAlertPolicyChange`).
   */
  async replaceAlertPolicy(changes: UpdateAlertPolicyDto, actor: ActorContext): Promise<AlertPolicy> {
    const policy = { ...(await this.alertPolicy()), ...definedFields(changes) };
    await this.settings.write(ALERT_POLICY_KEY, policy);
    await this.audit.record(actor, {
      action: 'settings:alert-policy',
      targetType: 'settings',
      targetId: ALERT_POLICY_KEY,
      details: { ...policy },
    });
    for (const listener of this.alertPolicyListeners) await listener(policy);
    return policy;
  }

  /**
   * Registers work that follows a change of the alert policy, for a module that keeps something
   * derived from it and cannot be imported here (it imports this one).
   */
  onAlertPolicyChange(listener: (policy: AlertPolicy) => Promise<unknown>): void {
    this.alertPolicyListeners.push(listener);
  }

  /** The CAs asked for renewal information, in the order they are tried; Let's Encrypt and Google Trust Services until configured. */
  async acmeCas(): Promise<AcmeCa[]> {
    return (await this.settings.read<AcmeCa[]>(ACME_CAS_KEY)) ?? DEFAULT_ACME_CAS.map((ca) => ({ ...ca }));
  }

  /** `cas` as AcmeCasPipe reads them. */
  async replaceAcmeCas(cas: AcmeCa[], actor: ActorContext): Promise<AcmeCa[]> {
    await this.settings.write(ACME_CAS_KEY, cas);
    await this.audit.record(actor, { action: 'settings:acme-cas', targetType: 'settings', targetId: ACME_CAS_KEY, details: { cas } });
    return cas;
  }

  /** `days` as AlertThresholdsPipe reads them; stored and answered descending. */
  async replaceAlertThresholds(days: number[], actor: ActorContext): Promise<number[]> {
    const thresholds = [...days].sort((a, b) => b - a);
    await this.settings.write(THRESHOLDS_KEY, thresholds);
    await this.audit.record(actor, {
      action: 'settings:alert_thresholds',
      targetType: 'settings',
      targetId: THRESHOLDS_KEY,
      details: { thresholds },
    });
    return thresholds;
  }

  async mailSettings(): Promise<MailSettingsResponseDto> {
    return toMailResponse(await this.storedMail());
  }

  async replaceMailSettings(dto: UpdateMailSettingsDto, actor: ActorContext): Promise<MailSettingsResponseDto> {
    const current = await this.storedMail();
    const keepsPassword = dto.password === undefined || dto.password === null;
    const sealedPassword = keepsPassword
      ? current.sealedPassword
      : dto.password === ''
        ? null
        : sealSecret(dto.password as string, this.config.encryptionKey);
    const next: StoredMailConfig = {
      enabled: dto.enabled,
      host: dto.host ?? null,
      port: dto.port ?? null,
      tlsMode: dto.tlsMode ?? 'starttls',
      auth: dto.auth ?? 'none',
      username: dto.username ?? null,
      sealedPassword,
      fromAddress: dto.fromAddress ?? null,
      fromName: dto.fromName ?? null,
      allowInvalidCertificate: dto.allowInvalidCertificate ?? false,
    };
    const redirected = keepsPassword && current.sealedPassword !== null ? passwordRedirections(current, next) : [];
    if (redirected.length > 0) {
      throw new BadRequestException(
        `Changing ${redirected.join(', ')} needs the password again: send "password" (or "" to clear it), ` +
          'so that the stored password is never sent to a server it was not entered for.',
      );
    }
    await this.settings.write(MAIL_KEY, next);
    const { sealedPassword: _sealed, ...audited } = next;
    await this.audit.record(actor, {
      action: 'settings:mail',
      targetType: 'settings',
      targetId: MAIL_KEY,
      details: { ...audited, passwordSet: sealedPassword !== null },
    });
    return toMailResponse(next);
  }

  /** What the mailer needs, or null when mail is disabled or not fully configured. */
  async smtpSettings(): Promise<SmtpSettings | null> {
    const stored = await this.storedMail();
    if (!stored.enabled || !stored.host || !stored.port || !stored.fromAddress) return null;
    let password: string | null = null;
    if (stored.sealedPassword) {
      try {
        password = openSecret(stored.sealedPassword, this.config.encryptionKey);
      } catch {
        // Sealed under another ENCRYPTION_KEY: the operator must enter the password again.
        this.logger.error('The stored SMTP password cannot be decrypted with the current ENCRYPTION_KEY; set it again.');
        return null;
      }
    }
    return {
      host: stored.host,
      port: stored.port,
      tlsMode: stored.tlsMode,
      auth: stored.auth,
      username: stored.username,
      password,
      fromAddress: stored.fromAddress,
      fromName: stored.fromName,
      allowInvalidCertificate: stored.allowInvalidCertificate,
    };
  }

  /** 204 when accepted, 422 when mail is off or unconfigured, 502 saying how the round trip failed (smtp-failure.ts) otherwise. */
  async sendTestMail(to: string): Promise<void> {
    const smtp = await this.smtpSettings();
    if (!smtp) throw new UnprocessableEntityException('Mail is disabled or not configured.');
    try {
      await this.mailer.send(smtp, {
        to,
        subject: 'Certkeeper test message',
        text: 'This is a test message from Certkeeper. Mail delivery works.',
        html: '<p>This is a test message from Certkeeper. Mail delivery works.</p>',
      });
    } catch (error) {
      throw new BadGatewayException(`The SMTP round trip failed: ${error instanceof SmtpDeliveryError ? error.message : 'unknown error'}.`);
    }
  }

  private async storedMail(): Promise<StoredMailConfig> {
    return { ...UNCONFIGURED_MAIL, ...((await this.settings.read<StoredMailConfig>(MAIL_KEY)) ?? {}) };
  }
}

/**
 * The changes that would send the stored password somewhere else, or with less protection: another
 * server, port, account or TLS mode, or certificate checks turned off. Someone who may edit the
 * settings but never knew the password must not be able to collect it with a test message.
 */
function passwordRedirections(current: StoredMailConfig, next: StoredMailConfig): string[] {
  const moved = (['host', 'port', 'tlsMode', 'username'] as const).filter((field) => current[field] !== next[field]);
  return next.allowInvalidCertificate && !current.allowInvalidCertificate ? [...moved, 'allowInvalidCertificate'] : moved;
}

/** The fields a partial update gives: class-transformer leaves absent ones as undefined properties. */
function definedFields<T extends object>(changes: T): Partial<T> {
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function toMailResponse(stored: StoredMailConfig): MailSettingsResponseDto {
  const { sealedPassword, ...visible } = stored;
  return { ...visible, passwordSet: sealedPassword !== null };
}
