import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags, ApiTooManyRequestsResponse } from '@nestjs/swagger';
import type { UserPrincipal } from '../../common/auth/principal';
import { CurrentUser, RequirePermission } from '../../common/auth/route-access';
import { ClientAddress } from '../../common/http/client-address';
import { TagListPipe } from '../../common/validation/tag-list.pipe';
import { Actor } from '../audit/actor.decorator';
import type { ActorContext } from '../audit/audit.service';
import { MAX_SUBSCRIPTIONS, MeResponseDto, UpdateMeDto } from './me.dto';
import { MeService } from './me.service';
import type { UserEntity } from './user.entity';
import { toUserResponse } from './users.dto';

function toMeResponse(user: UserEntity): MeResponseDto {
  return { ...toUserResponse(user), tagSubscriptions: user.tagSubscriptions, calendarFeedEnabled: user.calendarTokenHash !== null };
}

@ApiTags('me')
@Controller('me')
export class MeController {
  constructor(private readonly me: MeService) {}

  @Get()
  @ApiOperation({
    summary: 'Get your profile',
    description: "Needs `self:access`. The caller's user record, their tag subscriptions, and whether a calendar feed token exists.",
  })
  @RequirePermission('self:access')
  @ApiOkResponse({ type: MeResponseDto })
  async getMe(@CurrentUser() caller: UserPrincipal): Promise<MeResponseDto> {
    return toMeResponse(await this.me.getMe(caller.userId));
  }

  @Get('tag-subscriptions')
  @ApiOperation({
    summary: 'Get your tag subscriptions',
    description: "Needs `self:access`. The tags that scope the caller's alerts and calendar feed; an empty array means every endpoint.",
  })
  @RequirePermission('self:access')
  @ApiOkResponse({ schema: { type: 'array', items: { type: 'string' } }, description: 'Empty means every endpoint.' })
  async getTagSubscriptions(@CurrentUser() caller: UserPrincipal): Promise<string[]> {
    return (await this.me.getMe(caller.userId)).tagSubscriptions;
  }

  @Put('tag-subscriptions')
  @ApiOperation({
    summary: 'Replace your tag subscriptions',
    description:
      'Needs `self:access`. The body is a JSON array of at most 100 tags; repeated tags are kept once. ' +
      'Alerts and the calendar feed then cover only endpoints carrying at least one of them; an empty array means every endpoint.',
  })
  @RequirePermission('self:access')
  @ApiBody({ schema: { type: 'array', maxItems: MAX_SUBSCRIPTIONS, items: { type: 'string' }, example: ['env:prod', 'team:payments'] } })
  @ApiOkResponse({ schema: { type: 'array', items: { type: 'string' } } })
  replaceTagSubscriptions(
    @CurrentUser() caller: UserPrincipal,
    @Body(new TagListPipe(MAX_SUBSCRIPTIONS, `At most ${MAX_SUBSCRIPTIONS} subscriptions.`)) subscriptions: string[],
  ): Promise<string[]> {
    return this.me.replaceTagSubscriptions(caller.userId, subscriptions);
  }

  @Put()
  @ApiOperation({
    summary: 'Update your profile',
    description:
      'Needs `self:access`. Changes only what it names: ' +
      '`name`, `notify`, `calendarToken: null` (clears the feed token; the old URL stops working) and `password`, which needs ' +
      'the right `currentPassword` (400 otherwise; wrong current passwords count towards the sign-in limits, 429 with `Retry-After` once ' +
      'spent). A new password ends every session of the caller, this one included: sign in again with it. ' +
      '`email` is 400: single sign-on links accounts by e-mail address, so only an administrator changes one (`PUT /users/{id}`).',
  })
  @RequirePermission('self:access')
  @ApiOkResponse({ type: MeResponseDto })
  @ApiTooManyRequestsResponse({
    description: 'Too many wrong current passwords for this account or from this address; `Retry-After` says how many seconds to wait.',
  })
  async updateMe(
    @CurrentUser() caller: UserPrincipal,
    @Body() dto: UpdateMeDto,
    @Actor() actor: ActorContext,
    @ClientAddress() address: string,
  ): Promise<MeResponseDto> {
    return toMeResponse(await this.me.updateMe(caller.userId, dto, { actor, address }));
  }
}
