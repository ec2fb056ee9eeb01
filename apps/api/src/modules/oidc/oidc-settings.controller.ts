import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import { RequirePermission } from '../../common/auth/route-access';
import { Actor } from '../audit/actor.decorator';
import type { ActorContext } from '../audit/audit.service';
import { OidcSettingsResponseDto, UpdateOidcSettingsDto } from './oidc-settings.dto';
import { OidcSettingsService } from './oidc-settings.service';

const plainText = (description: string) => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } });

@ApiTags('settings')
@Controller('settings/oidc')
export class OidcSettingsController {
  constructor(private readonly oidc: OidcSettingsService) {}

  @Get()
  @ApiOperation({
    summary: 'Get the OIDC sign-in settings',
    description:
      'Needs `settings:view`. The identity provider configuration. The client secret is never returned: `clientSecretSet` says ' +
      'whether one is stored. Never configured: `enabled: false` with nulls and the defaults.',
  })
  @RequirePermission('settings:view')
  @ApiOkResponse({ type: OidcSettingsResponseDto })
  getOidcSettings(): Promise<OidcSettingsResponseDto> {
    return this.oidc.get();
  }

  @Put()
  @ApiOperation({
    summary: 'Replace the OIDC sign-in settings',
    description:
      'Needs `settings:edit`. `clientSecret` is write-only: omitted or null keeps the stored one, `""` clears it; it is encrypted ' +
      'at rest. While one is stored, changing `issuerUrl` or `clientId` needs `clientSecret` again (a value or `""`): 400 ' +
      'otherwise, and nothing changes. `issuerUrl` must be https (http only on a loopback host). With `enabled: true`, `issuerUrl` and `clientId` are ' +
      "required and the issuer's discovery document is read (through the outbound guard, within 10 seconds): 422 naming what is " +
      'wrong when it cannot be read, is not JSON, names another issuer or lacks an authorization endpoint, token endpoint or ' +
      'jwks_uri. Writes the audit entry `settings:oidc` (without the secret).',
  })
  @RequirePermission('settings:edit')
  @ApiOkResponse({ type: OidcSettingsResponseDto })
  @ApiBadRequestResponse(
    plainText(
      'A field is missing, of the wrong type or out of range (one line per problem), or the issuer or client changed without the secret.',
    ),
  )
  @ApiUnprocessableEntityResponse(plainText("The issuer's discovery document is unusable; the body says why."))
  replaceOidcSettings(@Body() dto: UpdateOidcSettingsDto, @Actor() actor: ActorContext): Promise<OidcSettingsResponseDto> {
    return this.oidc.replace(dto, actor);
  }
}
