import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateBy,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { ROLES, type Role } from '../../common/auth/permissions';
import { IsNullable, IsOmittable } from '../../common/validation/decorators';
import { issuerUrlProblem } from './oidc-settings';

// A JSON claim name: printable, no white space.
const CLAIM_NAME = /^[^\s\p{Cc}]{1,100}$/u;

function IsIssuerUrl(): PropertyDecorator {
  return ValidateBy({
    name: 'isIssuerUrl',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && value.length <= 2048 && issuerUrlProblem(value) === null,
      defaultMessage: (args) =>
        typeof args?.value === 'string' ? (issuerUrlProblem(args.value) ?? 'issuerUrl is too long') : 'issuerUrl must be a string',
    },
  });
}

/** At most 100 claim values (group names) of 1 to 200 characters. */
function IsClaimValueList(): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ type: [String], maxItems: 100 }),
    IsArray(),
    ArrayMaxSize(100),
    IsString({ each: true }),
    MinLength(1, { each: true }),
    MaxLength(200, { each: true }),
  );
}

/** Claim values (group names) that grant each role; the highest role whose list meets the claim wins. */
export class RoleMappingDto {
  @IsClaimValueList()
  admin!: string[];

  @IsClaimValueList()
  operator!: string[];

  @IsClaimValueList()
  viewer!: string[];
}

/**
 * PUT /settings/oidc. `clientSecret` is write-only: omitted or null keeps the stored one, "" clears
 * it. With `enabled: true`, issuerUrl and clientId are required and the issuer's discovery
 * document must be readable (422 otherwise).
 */
export class UpdateOidcSettingsDto {
  @ApiProperty() @IsBoolean() enabled!: boolean;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'The issuer identifier: https, or http on a loopback host only. Required when enabled.',
    example: 'https://idp.example.com/realms/acme',
  })
  @ValidateIf((dto: UpdateOidcSettingsDto) => dto.enabled || (dto.issuerUrl !== undefined && dto.issuerUrl !== null))
  @IsIssuerUrl()
  issuerUrl?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Required when enabled.' })
  @ValidateIf((dto: UpdateOidcSettingsDto) => dto.enabled || (dto.clientId !== undefined && dto.clientId !== null))
  @IsString()
  @MinLength(1)
  @MaxLength(500)
  clientId?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    writeOnly: true,
    description: 'Write-only: omitted or null keeps the stored secret, "" clears it (a public client). Encrypted at rest.',
  })
  @IsOptional()
  @IsNullable()
  @IsString()
  @MaxLength(2048)
  clientSecret?: string | null;

  @ApiPropertyOptional({ default: 'openid email profile', description: 'Space-separated; must include `openid`.' })
  @IsOmittable()
  @IsString()
  @MaxLength(1000)
  @Matches(/(^|\s)openid(\s|$)/, { message: 'scopes must include openid' })
  @Matches(/^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/, {
    message: 'scopes must be scope tokens separated by single spaces',
  })
  scopes?: string;

  @ApiPropertyOptional({ default: 'email' })
  @IsOmittable()
  @Matches(CLAIM_NAME, { message: 'emailClaim must be a claim name' })
  emailClaim?: string;

  @ApiPropertyOptional({ default: 'name' })
  @IsOmittable()
  @Matches(CLAIM_NAME, { message: 'nameClaim must be a claim name' })
  nameClaim?: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description:
      'The claim whose value(s) roleMapping maps, such as `groups`, or a dotted path into a nested claim such as ' +
      '`realm_access.roles`; null: roles are not taken from the provider.',
  })
  @IsOptional()
  @IsNullable()
  @Matches(CLAIM_NAME, { message: 'roleClaim must be a claim name or null' })
  roleClaim?: string | null;

  @ApiPropertyOptional({ type: RoleMappingDto, description: 'Default: empty lists.' })
  @IsOmittable()
  @ValidateNested()
  @Type(() => RoleMappingDto)
  roleMapping?: RoleMappingDto;

  @ApiPropertyOptional({ enum: ROLES, nullable: true, description: 'The role of users no mapping applies to; null refuses them (403).' })
  @IsOptional()
  @IsNullable()
  @IsIn(ROLES)
  defaultRole?: Role | null;

  @ApiPropertyOptional({ default: 'Sign in with SSO' })
  @IsOmittable()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  buttonLabel?: string;
}

export class OidcSettingsResponseDto {
  @ApiProperty() enabled!: boolean;
  @ApiProperty({ type: String, nullable: true }) issuerUrl!: string | null;
  @ApiProperty({ type: String, nullable: true }) clientId!: string | null;
  @ApiProperty({ description: 'Whether a client secret is stored; the secret itself is never returned.' }) clientSecretSet!: boolean;
  @ApiProperty() scopes!: string;
  @ApiProperty() emailClaim!: string;
  @ApiProperty() nameClaim!: string;
  @ApiProperty({ type: String, nullable: true }) roleClaim!: string | null;
  @ApiProperty({ type: RoleMappingDto }) roleMapping!: RoleMappingDto;
  @ApiProperty({ enum: ROLES, nullable: true }) defaultRole!: Role | null;
  @ApiProperty() buttonLabel!: string;
}
