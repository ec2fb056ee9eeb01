import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { ROLES, type Role } from '../../common/auth/permissions';

export class LoginDto {
  @ApiProperty({ format: 'email' })
  @IsString()
  @MaxLength(320)
  email!: string;

  @ApiProperty()
  @IsString()
  @MaxLength(1024)
  password!: string;
}

export class LoginUserDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'email' }) email!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ROLES }) role!: Role;
}

export class LoginResponseDto {
  @ApiProperty({ description: 'A JWT; send it as `Authorization: Bearer <token>`.' }) token!: string;
  @ApiProperty({ format: 'date-time' }) expiresAt!: string;
  @ApiProperty({ type: LoginUserDto }) user!: LoginUserDto;
}
