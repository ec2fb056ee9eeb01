import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Equals, IsBoolean, IsString, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { IsOmittable, IsRefused } from '../../common/validation/decorators';
import { MIN_PASSWORD_LENGTH, UserResponseDto } from './users.dto';

/** The most tags a user subscribes to. */
export const MAX_SUBSCRIPTIONS = 100;

export class MeResponseDto extends UserResponseDto {
  @ApiProperty({ type: [String], description: 'Tags whose endpoints the caller is alerted about; empty means every endpoint.' })
  tagSubscriptions!: string[];

  @ApiProperty({ description: 'Whether a calendar feed token exists.' })
  calendarFeedEnabled!: boolean;
}

/** The caller's own profile. Changes what it names; the e-mail address is not the caller's to change. */
export class UpdateMeDto {
  @ApiPropertyOptional({ maxLength: 200 })
  @IsOmittable()
  @IsString()
  @MaxLength(200)
  name?: string;

  // Declared only to answer a clear sentence rather than "should not exist": single sign-on links
  // accounts by e-mail address, so only an administrator changes one (docs/api-contract.md section 2).
  @IsRefused(
    'email cannot be changed here: an administrator changes e-mail addresses (PUT /api/v1/users/{id}), since single sign-on links accounts by them',
  )
  email?: never;

  @ApiPropertyOptional({ description: 'Receive expiry alerts by e-mail. Does not affect the calendar feed.' })
  @IsOmittable()
  @IsBoolean()
  notify?: boolean;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    enum: [null],
    description: 'null clears the calendar feed token; the old feed URL stops working.',
  })
  @ValidateIf((_, value) => value !== undefined)
  @Equals(null, { message: 'calendarToken can only be set to null; use POST /api/v1/me/calendar-token to create one' })
  calendarToken?: null;

  @ApiPropertyOptional({ minLength: MIN_PASSWORD_LENGTH, description: 'A new password; requires currentPassword.' })
  @IsOmittable()
  @IsString()
  @MinLength(MIN_PASSWORD_LENGTH)
  @MaxLength(1024)
  password?: string;

  @ApiPropertyOptional({ description: 'The current password, required to set a new one.' })
  @ValidateIf((dto: UpdateMeDto) => dto.password !== undefined)
  @IsString({ message: 'currentPassword is required to change the password' })
  @MaxLength(1024)
  currentPassword?: string;
}
