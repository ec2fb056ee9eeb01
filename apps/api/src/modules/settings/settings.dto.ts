import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsEmail,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { SMTP_AUTH, type SmtpAuth, TLS_MODES, type TlsMode } from '../mail/mail-config';
import { IsNullable } from '../../common/validation/decorators';

export const DEFAULT_THRESHOLDS = [30, 14, 7, 1];

/**
 * PUT /settings/mail. The password is write-only: omitted or null keeps it, "" clears it. A change
 * of host, port, tlsMode or username (or turning certificate checks off) must carry the password.
 */
export class UpdateMailSettingsDto {
  @ApiProperty() @IsBoolean() enabled!: boolean;

  @ApiPropertyOptional({ type: String, nullable: true })
  @ValidateIf((dto: UpdateMailSettingsDto) => dto.enabled || (dto.host !== undefined && dto.host !== null))
  @IsString()
  @MinLength(1)
  @MaxLength(253)
  host?: string | null;

  @ApiPropertyOptional({ type: 'integer', nullable: true, minimum: 1, maximum: 65535 })
  @ValidateIf((dto: UpdateMailSettingsDto) => dto.enabled || (dto.port !== undefined && dto.port !== null))
  @IsInt()
  @Min(1)
  @Max(65535)
  port?: number | null;

  @ApiPropertyOptional({ enum: TLS_MODES, default: 'starttls' }) @IsOptional() @IsIn(TLS_MODES) tlsMode?: TlsMode;
  @ApiPropertyOptional({ enum: SMTP_AUTH, default: 'none' }) @IsOptional() @IsIn(SMTP_AUTH) auth?: SmtpAuth;

  @ApiPropertyOptional({ type: String, nullable: true })
  @ValidateIf(
    (dto: UpdateMailSettingsDto) =>
      (dto.auth !== undefined && dto.auth !== 'none') || (dto.username !== undefined && dto.username !== null),
  )
  @IsString()
  @MinLength(1)
  @MaxLength(320)
  username?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    writeOnly: true,
    description:
      'Omitted or null keeps the stored password; "" clears it. Required (400 otherwise) when a password is stored and ' +
      'host, port, tlsMode or username changes, or allowInvalidCertificate turns on: the stored password is only ever ' +
      'sent where it was entered for.',
  })
  @IsOptional()
  @IsNullable()
  @IsString()
  @MaxLength(1024)
  password?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, format: 'email' })
  @ValidateIf((dto: UpdateMailSettingsDto) => dto.enabled || (dto.fromAddress !== undefined && dto.fromAddress !== null))
  @IsEmail({}, { message: 'fromAddress must be an e-mail address' })
  fromAddress?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsNullable()
  @IsString()
  @MaxLength(200)
  fromName?: string | null;

  @ApiPropertyOptional({ default: false, description: 'Accept a self-signed SMTP server certificate (a private relay).' })
  @IsOptional()
  @IsBoolean()
  allowInvalidCertificate?: boolean;
}

export class MailSettingsResponseDto {
  @ApiProperty() enabled!: boolean;
  @ApiProperty({ type: String, nullable: true }) host!: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) port!: number | null;
  @ApiProperty({ enum: TLS_MODES }) tlsMode!: TlsMode;
  @ApiProperty({ enum: SMTP_AUTH }) auth!: SmtpAuth;
  @ApiProperty({ type: String, nullable: true }) username!: string | null;
  @ApiProperty({ description: 'Whether a password is stored; the password itself is never returned.' }) passwordSet!: boolean;
  @ApiProperty({ type: String, nullable: true }) fromAddress!: string | null;
  @ApiProperty({ type: String, nullable: true }) fromName!: string | null;
  @ApiProperty() allowInvalidCertificate!: boolean;
}

export class MailTestDto {
  @ApiPropertyOptional({ format: 'email', description: "Default: the caller's e-mail address." })
  @IsOptional()
  @IsEmail({}, { message: 'to must be an e-mail address' })
  to?: string;
}

/** The alert policy (docs/api-contract.md sections 15 and 16), as GET answers it. */
export class AlertPolicyDto {
  @ApiProperty({ description: 'Thresholds shrink to a fraction of each certificate’s lifetime.', default: false }) lifetimeAware!: boolean;
  @ApiProperty({
    minimum: 0.05,
    maximum: 0.9,
    default: 0.33,
    description: 'With lifetimeAware: a threshold t applies as min(t, ceil(lifetime × this)).',
  })
  lifetimeFraction!: number;
  @ApiProperty({
    default: true,
    description: 'Ask the ACME CAs for renewal information (RFC 9773) and alert when a suggested window has ended.',
  })
  renewalInfo!: boolean;
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 720, default: 24, description: 'Hours a stored renewal may stay undeployed.' })
  supersededAfterHours!: number;
}

/** PUT /settings/alert-policy: a field left out keeps its stored value. */
export class UpdateAlertPolicyDto {
  @ApiPropertyOptional() @IsOptional() @IsBoolean() lifetimeAware?: boolean;

  @ApiPropertyOptional({ minimum: 0.05, maximum: 0.9 })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0.05)
  @Max(0.9)
  lifetimeFraction?: number;

  @ApiPropertyOptional() @IsOptional() @IsBoolean() renewalInfo?: boolean;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 720 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(720)
  supersededAfterHours?: number;
}

export class AcmeCaDto {
  @ApiProperty({ maxLength: 100, example: "Let's Encrypt" }) name!: string;
  @ApiProperty({ format: 'uri', maxLength: 2048, example: 'https://acme-v02.api.letsencrypt.org/directory' }) directoryUrl!: string;
}
