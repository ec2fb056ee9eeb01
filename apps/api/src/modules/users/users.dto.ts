import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { ROLES, type Role } from '../../common/auth/permissions';
import { IsNormalisedEmail, IsNullable, IsOmittable } from '../../common/validation/decorators';
import type { UserEntity } from './user.entity';

export const MIN_PASSWORD_LENGTH = 8;
const MAX_PASSWORD_LENGTH = 1024;

export class CreateUserDto {
  @ApiProperty({ format: 'email' })
  @IsNormalisedEmail()
  email!: string;

  @ApiPropertyOptional({ maxLength: 200 })
  @IsOmittable()
  @IsString()
  @MaxLength(200)
  name?: string;

  @ApiProperty({ enum: ROLES })
  @IsIn(ROLES)
  role!: Role;

  @ApiPropertyOptional({ minLength: MIN_PASSWORD_LENGTH, description: 'Without a password the user can sign in only through OIDC.' })
  @IsOmittable()
  @IsString()
  @MinLength(MIN_PASSWORD_LENGTH)
  @MaxLength(MAX_PASSWORD_LENGTH)
  password?: string;

  @ApiPropertyOptional({ default: true })
  @IsOmittable()
  @IsBoolean()
  notify?: boolean;
}

/** Changes what it names; omitted fields keep their value. */
export class UpdateUserDto {
  @ApiPropertyOptional({ format: 'email' })
  @IsOmittable()
  @IsNormalisedEmail()
  email?: string;

  @ApiPropertyOptional({ maxLength: 200 })
  @IsOmittable()
  @IsString()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ enum: ROLES })
  @IsOmittable()
  @IsIn(ROLES)
  role?: Role;

  @ApiPropertyOptional({
    // Named: `string | null` reflects as Object, which would describe the field as an object.
    type: String,
    minLength: MIN_PASSWORD_LENGTH,
    nullable: true,
    description: 'A new password; null removes it (OIDC sign-in only).',
  })
  @IsOptional()
  @IsNullable()
  @IsString()
  @MinLength(MIN_PASSWORD_LENGTH)
  @MaxLength(MAX_PASSWORD_LENGTH)
  password?: string | null;

  @ApiPropertyOptional()
  @IsOmittable()
  @IsBoolean()
  notify?: boolean;

  @ApiPropertyOptional({ description: 'A disabled user cannot sign in; their tokens and API keys stop working at once.' })
  @IsOmittable()
  @IsBoolean()
  disabled?: boolean;

  @ApiPropertyOptional({
    description:
      "Deletes all the user's API keys with this change (for a password reset after a compromise). " +
      'A new password or disabling the user always ends their signed-in sessions; their API keys only with this flag.',
  })
  @IsOmittable()
  @IsBoolean()
  revokeApiKeys?: boolean;
}

export class UserResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'email' }) email!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ROLES }) role!: Role;
  @ApiProperty() disabled!: boolean;
  @ApiProperty() notify!: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({
    format: 'date-time',
    type: String,
    nullable: true,
    description: 'The last sign-in, password or OIDC; null before the first.',
  })
  lastSignInAt!: string | null;
  @ApiProperty({ description: 'Whether the user can sign in here with e-mail and password (one is set).' }) localSignIn!: boolean;
  @ApiProperty({ description: 'Whether the user is linked to an identity at the OIDC provider (has signed in through it once).' })
  oidcLinked!: boolean;
}

export function toUserResponse(user: UserEntity): UserResponseDto {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    disabled: user.disabled,
    notify: user.notify,
    createdAt: user.createdAt.toISOString(),
    lastSignInAt: user.lastSignInAt?.toISOString() ?? null,
    localSignIn: user.passwordHash !== null,
    oidcLinked: user.oidcSubject !== null,
  };
}
