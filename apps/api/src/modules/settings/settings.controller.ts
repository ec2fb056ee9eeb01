import { Body, Controller, Get, HttpCode, Post, Put } from '@nestjs/common';
import {
  ApiBadGatewayResponse,
  ApiBody,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { UserPrincipal } from '../../common/auth/principal';
import { CurrentUser, RequirePermission } from '../../common/auth/route-access';
import { Actor } from '../audit/actor.decorator';
import type { ActorContext } from '../audit/audit.service';
import type { AcmeCa, AlertPolicy } from '@certkeeper/domain';
import { AcmeCasPipe, MAX_ACME_CAS } from './acme-cas.pipe';
import { AlertThresholdsPipe } from './alert-thresholds.pipe';
import {
  AcmeCaDto,
  AlertPolicyDto,
  MailSettingsResponseDto,
  MailTestDto,
  UpdateAlertPolicyDto,
  UpdateMailSettingsDto,
} from './settings.dto';
import { SettingsService } from './settings.service';

@ApiTags('settings')
@Controller('settings')
export class SettingsController {
  constructor(private readonly settings: SettingsService) {}

  @Get('alert-thresholds')
  @ApiOperation({
    summary: 'Get the alert thresholds',
    description:
      'Needs `settings:view`. The numbers of days before expiry at which alerts go out, descending; 30, 14, 7 and 1 until configured.',
  })
  @RequirePermission('settings:view')
  @ApiOkResponse({ schema: { type: 'array', items: { type: 'integer' }, example: [30, 14, 7, 1] }, description: 'Day counts, descending.' })
  getAlertThresholds(): Promise<number[]> {
    return this.settings.alertThresholds();
  }

  @Put('alert-thresholds')
  @ApiOperation({
    summary: 'Replace the alert thresholds',
    description:
      'Needs `settings:edit`. The body is a non-empty JSON array of at most 20 unique integers from 1 to 3650; anything else is 400. ' +
      'Answers them sorted descending.',
  })
  @RequirePermission('settings:edit')
  @ApiBody({
    schema: { type: 'array', minItems: 1, maxItems: 20, uniqueItems: true, items: { type: 'integer', minimum: 1, maximum: 3650 } },
  })
  @ApiOkResponse({ schema: { type: 'array', items: { type: 'integer' } }, description: 'Stored, descending.' })
  replaceAlertThresholds(@Body(AlertThresholdsPipe) days: number[], @Actor() actor: ActorContext): Promise<number[]> {
    return this.settings.replaceAlertThresholds(days, actor);
  }

  @Get('alert-policy')
  @ApiOperation({
    summary: 'Get the alert policy',
    description:
      'Needs `settings:view`. How alerts fit short-lived certificates (docs/api-contract.md section 15): lifetime-aware thresholds, ' +
      'renewal information from the ACME CAs, and how long a stored renewal may stay undeployed.',
  })
  @RequirePermission('settings:view')
  @ApiOkResponse({ type: AlertPolicyDto })
  getAlertPolicy(): Promise<AlertPolicy> {
    return this.settings.alertPolicy();
  }

  @Put('alert-policy')
  @ApiOperation({
    summary: 'Change the alert policy',
    description:
      'Needs `settings:edit`. A field left out keeps its stored value. `lifetimeFraction` 0.05 to 0.9, `supersededAfterHours` an integer ' +
      'from 0 to 720; anything else, and any other property, is 400. With `lifetimeAware`, a threshold t applies to a certificate of ' +
      'lifetime L days as min(t, ceil(L × lifetimeFraction)); the expiring list, the dashboard and the calendar keep plain days.',
  })
  @RequirePermission('settings:edit')
  @ApiOkResponse({ type: AlertPolicyDto, description: 'The whole policy as stored.' })
  replaceAlertPolicy(@Body() dto: UpdateAlertPolicyDto, @Actor() actor: ActorContext): Promise<AlertPolicy> {
    return this.settings.replaceAlertPolicy(dto, actor);
  }

  @Get('acme-cas')
  @ApiOperation({
    summary: 'Get the ACME CAs asked for renewal information',
    description:
      "Needs `settings:view`. In the order they are tried for an issuer not yet known; Let's Encrypt and Google Trust Services until configured.",
  })
  @RequirePermission('settings:view')
  @ApiOkResponse({ type: [AcmeCaDto] })
  getAcmeCas(): Promise<AcmeCa[]> {
    return this.settings.acmeCas();
  }

  @Put('acme-cas')
  @ApiOperation({
    summary: 'Replace the ACME CAs asked for renewal information',
    description:
      `Needs \`settings:edit\`. A JSON array of at most ${MAX_ACME_CAS} \`{ name, directoryUrl }\`: names unique (ignoring case), ` +
      'directories http or https URLs; anything else is 400. An empty array asks no CA. The refresh-renewal-info maintenance task ' +
      "reads each CA's directory for its renewalInfo URL (RFC 9773).",
  })
  @RequirePermission('settings:edit')
  @ApiBody({ type: [AcmeCaDto] })
  @ApiOkResponse({ type: [AcmeCaDto], description: 'Stored.' })
  replaceAcmeCas(@Body(AcmeCasPipe) cas: AcmeCa[], @Actor() actor: ActorContext): Promise<AcmeCa[]> {
    return this.settings.replaceAcmeCas(cas, actor);
  }

  @Get('mail')
  @ApiOperation({
    summary: 'Get the mail settings',
    description:
      'Needs `settings:view`. The SMTP configuration. The password is never returned: `passwordSet` says whether one is stored. ' +
      'Never configured: `enabled: false` with nulls.',
  })
  @RequirePermission('settings:view')
  @ApiOkResponse({ type: MailSettingsResponseDto })
  getMailSettings(): Promise<MailSettingsResponseDto> {
    return this.settings.mailSettings();
  }

  @Put('mail')
  @ApiOperation({
    summary: 'Replace the mail settings',
    description:
      'Needs `settings:edit`. `password` is write-only: omitted or null keeps the stored one, `""` clears it. ' +
      'While a password is stored, changing host, port, tlsMode or username, or turning allowInvalidCertificate on, needs the password ' +
      'again (400 otherwise), so that it is never sent where it was not entered for.',
  })
  @RequirePermission('settings:edit')
  @ApiOkResponse({ type: MailSettingsResponseDto })
  replaceMailSettings(@Body() dto: UpdateMailSettingsDto, @Actor() actor: ActorContext): Promise<MailSettingsResponseDto> {
    return this.settings.replaceMailSettings(dto, actor);
  }

  @Post('mail/test')
  @ApiOperation({
    summary: 'Send a test e-mail',
    description:
      "Needs `settings:edit`. Sends a test message to `to`, by default the caller's address. " +
      '204 when the SMTP server accepted it, 422 when mail is disabled or not configured, 502 when the round trip fails, naming how ' +
      '(refused, timeout, TLS, authentication, or rejected with its reply code) and never repeating text the SMTP server sent.',
  })
  @HttpCode(204)
  @RequirePermission('settings:edit')
  @ApiNoContentResponse({ description: 'The SMTP server accepted the test message.' })
  @ApiUnprocessableEntityResponse({ description: 'Mail is disabled or not configured.' })
  @ApiBadGatewayResponse({ description: 'The SMTP round trip failed; the body says how.' })
  async sendTestMail(@Body() dto: MailTestDto, @CurrentUser() caller: UserPrincipal): Promise<void> {
    await this.settings.sendTestMail(dto.to ?? caller.email);
  }
}
