import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Put, Query, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { RequirePermission } from '../../common/auth/route-access';
import { ListWindowQueryDto, setTotalCount } from '../../common/http/pagination';
import { TOTAL_COUNT_HEADERS } from '../../common/http/response-headers';
import { Actor } from '../audit/actor.decorator';
import type { ActorContext } from '../audit/audit.service';
import { ChannelDeliveryDto, ChannelInputDto, ChannelResponseDto, ChannelWithSecretDto, PatchChannelDto } from './channels.dto';
import { toChannelDelivery, toChannelResponse, toChannelWithSecret } from './channels.mapper';
import { ChannelsService } from './channels.service';

const RULES =
  '`url` and `secret` are write-only (reads show `urlHost` and `secretSet`); omitted on PUT or PATCH they keep the stored ones, ' +
  'and changing `url` while a secret is stored needs `secret` again (400 otherwise). A webhook secret is `whsec_` and the base64 ' +
  'of 24 to 64 bytes; a PagerDuty channel needs its routing key; Slack and Teams take none. `mode: "daily"` is for slack, teams ' +
  'and ntfy. A 400 names every problem, one per line; a taken name is 409.';

@ApiTags('settings')
@Controller('notification-channels')
export class ChannelsController {
  constructor(private readonly channels: ChannelsService) {}

  @Get()
  @ApiOperation({ summary: 'List notification channels', description: 'Needs `settings:view`. Every channel, by name.' })
  @RequirePermission('settings:view')
  @ApiOkResponse({ type: [ChannelResponseDto] })
  async listChannels(): Promise<ChannelResponseDto[]> {
    return (await this.channels.listChannels()).map(toChannelResponse);
  }

  @Post()
  @ApiOperation({
    summary: 'Create a notification channel',
    description:
      'Needs `settings:edit`. A webhook, Slack, Teams, ntfy or PagerDuty receiver the alert job serves beside e-mail ' +
      '(docs/api-contract.md section 17). A webhook created without `secret` gets a generated one, answered in `secret` this once. ' +
      RULES,
  })
  @RequirePermission('settings:edit')
  @ApiCreatedResponse({ type: ChannelWithSecretDto })
  @ApiBadRequestResponse({ description: 'A field or a rule between fields is not met; one line per problem.' })
  @ApiConflictResponse({ description: 'The name is taken.' })
  async createChannel(@Body() dto: ChannelInputDto, @Actor() actor: ActorContext): Promise<ChannelWithSecretDto> {
    return toChannelWithSecret(await this.channels.createChannel(dto, actor));
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a notification channel', description: 'Needs `settings:view`. 404 for an unknown id.' })
  @RequirePermission('settings:view')
  @ApiOkResponse({ type: ChannelResponseDto })
  async getChannel(@Param('id', ParseUUIDPipe) id: string): Promise<ChannelResponseDto> {
    return toChannelResponse(await this.channels.getChannel(id));
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Replace a notification channel',
    description: 'Needs `settings:edit`. Omitted settings return to their defaults; the kind cannot change. ' + RULES,
  })
  @RequirePermission('settings:edit')
  @ApiOkResponse({ type: ChannelResponseDto })
  @ApiBadRequestResponse({ description: 'A field or a rule between fields is not met; one line per problem.' })
  @ApiConflictResponse({ description: 'The name is taken.' })
  async replaceChannel(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: ChannelInputDto,
    @Actor() actor: ActorContext,
  ): Promise<ChannelResponseDto> {
    return toChannelResponse(await this.channels.replaceChannel(id, dto, actor));
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Update some of a notification channel',
    description: 'Needs `settings:edit`. Changes only what it names. ' + RULES,
  })
  @RequirePermission('settings:edit')
  @ApiOkResponse({ type: ChannelResponseDto })
  @ApiBadRequestResponse({ description: 'A field or a rule between fields is not met; one line per problem.' })
  @ApiConflictResponse({ description: 'The name is taken.' })
  async patchChannel(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: PatchChannelDto,
    @Actor() actor: ActorContext,
  ): Promise<ChannelResponseDto> {
    return toChannelResponse(await this.channels.patchChannel(id, dto, actor));
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Delete a notification channel',
    description: 'Needs `settings:edit`. Its deliveries and their log go with it. 404 for an unknown id.',
  })
  @HttpCode(204)
  @RequirePermission('settings:edit')
  @ApiNoContentResponse()
  async deleteChannel(@Param('id', ParseUUIDPipe) id: string, @Actor() actor: ActorContext): Promise<void> {
    await this.channels.deleteChannel(id, actor);
  }

  @Post(':id/rotate-secret')
  @ApiOperation({
    summary: "Rotate a webhook's signing secret",
    description:
      'Needs `settings:edit`. Generates a new signing secret, answered in `secret` this once; deliveries are signed with it from now on. ' +
      '400 for a channel that is not a webhook, 404 for an unknown id.',
  })
  @HttpCode(200)
  @RequirePermission('settings:edit')
  @ApiOkResponse({ type: ChannelWithSecretDto })
  async rotateSecret(@Param('id', ParseUUIDPipe) id: string, @Actor() actor: ActorContext): Promise<ChannelWithSecretDto> {
    return toChannelWithSecret(await this.channels.rotateSecret(id, actor));
  }

  @Get(':id/deliveries')
  @ApiOperation({
    summary: "List a notification channel's deliveries",
    description:
      'Needs `settings:view`. Every attempt to deliver to the channel, newest first: delivered, failed (with why, in our words) or ' +
      'resolved (a PagerDuty incident). A bare array: `limit` 1 to 5000 (default 500) and `offset` choose the window, ' +
      '`X-Total-Count` gives the number of attempts. 404 for an unknown id.',
  })
  @RequirePermission('settings:view')
  @ApiOkResponse({ type: [ChannelDeliveryDto], description: 'X-Total-Count gives the full size.', headers: TOTAL_COUNT_HEADERS })
  async listDeliveries(
    @Param('id', ParseUUIDPipe) id: string,
    @Query() window: ListWindowQueryDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ChannelDeliveryDto[]> {
    const { rows, total } = await this.channels.deliveries(id, window);
    setTotalCount(res, total);
    return rows.map(toChannelDelivery);
  }
}
