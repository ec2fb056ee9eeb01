import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiBody, ApiConflictResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { UserPrincipal } from '../../common/auth/principal';
import { CurrentUser, RequirePermission } from '../../common/auth/route-access';
import { MeResponseDto, UpdateMeDto } from './me.dto';
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
  @RequirePermission('self:access')
  @ApiOkResponse({ type: MeResponseDto })
  async getMe(@CurrentUser() caller: UserPrincipal): Promise<MeResponseDto> {
    return toMeResponse(await this.me.getMe(caller.userId));
  }

  @Get('tag-subscriptions')
  @RequirePermission('self:access')
  @ApiOkResponse({ schema: { type: 'array', items: { type: 'string' } }, description: 'Empty means every endpoint.' })
  async getTagSubscriptions(@CurrentUser() caller: UserPrincipal): Promise<string[]> {
    return (await this.me.getMe(caller.userId)).tagSubscriptions;
  }

  @Put('tag-subscriptions')
  @RequirePermission('self:access')
  @ApiBody({ schema: { type: 'array', maxItems: 100, items: { type: 'string' }, example: ['env:prod', 'team:payments'] } })
  @ApiOkResponse({ schema: { type: 'array', items: { type: 'string' } } })
  replaceTagSubscriptions(@CurrentUser() caller: UserPrincipal, @Body() body: unknown): Promise<string[]> {
    return this.me.replaceTagSubscriptions(caller.userId, body);
  }

  @Put()
  @RequirePermission('self:access')
  @ApiOkResponse({ type: MeResponseDto })
  @ApiConflictResponse({ description: 'The e-mail address is taken.' })
  async updateMe(@CurrentUser() caller: UserPrincipal, @Body() dto: UpdateMeDto): Promise<MeResponseDto> {
    return toMeResponse(await this.me.updateMe(caller.userId, dto));
  }
}
