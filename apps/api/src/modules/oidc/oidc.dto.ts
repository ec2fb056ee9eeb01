import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength, MinLength } from 'class-validator';

export class OidcStatusDto {
  @ApiProperty({ description: 'Whether the sign-in page offers the OIDC button.' }) enabled!: boolean;
  @ApiProperty() buttonLabel!: string;
  @ApiProperty({
    description: 'Where the button leads: `{PUBLIC_URL}/api/v1/auth/oidc/login`, or that path alone when PUBLIC_URL is not set.',
    example: '/api/v1/auth/oidc/login',
  })
  loginUrl!: string;
}

export class OidcLoginQueryDto {
  @ApiPropertyOptional({
    description: 'A path on this site (`/...`, not `//` or `\\`) the web interface returns to after signing in.',
    example: '/endpoints',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  redirect?: string;
}

export class OidcExchangeDto {
  @ApiProperty({ description: 'The one-time code from `/login/oidc?code=`.' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  code!: string;
}
