import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiConflictResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
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

  @Put()
  @RequirePermission('self:access')
  @ApiOkResponse({ type: MeResponseDto })
  @ApiConflictResponse({ description: 'The e-mail address is taken.' })
  async updateMe(@CurrentUser() caller: UserPrincipal, @Body() dto: UpdateMeDto): Promise<MeResponseDto> {
    return toMeResponse(await this.me.updateMe(caller.userId, dto));
  }
}
