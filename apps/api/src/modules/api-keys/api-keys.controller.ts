import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { UserPrincipal } from '../../common/auth/principal';
import { CurrentUser, RequirePermission } from '../../common/auth/route-access';
import { Actor } from '../audit/actor.decorator';
import type { ActorContext } from '../audit/audit.service';
import { ApiKeyResponseDto, CreateApiKeyDto, CreatedApiKeyResponseDto, toApiKeyResponse } from './api-keys.dto';
import { ApiKeysService } from './api-keys.service';

@ApiTags('me')
@Controller('me/api-keys')
export class ApiKeysController {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @Post()
  @ApiOperation({
    summary: 'Create an API key',
    description:
      'Needs `self:access`. Creates an API key that acts as the caller, with their role, sent as `Authorization: Bearer <key>`. ' +
      'The raw key (`stx_p_<keyId>_<secret>`) is in this answer only: only its hash is stored. ' +
      'An `expiresAt` in the past is 400; once expired or deleted the key gets 401. ' +
      'Called with an API key that expires, the new key cannot outlive it: without `expiresAt` it inherits that expiry, and a later ' +
      '`expiresAt` is 400. Writes an `apikey:create` audit entry.',
  })
  @RequirePermission('self:access')
  @ApiCreatedResponse({ type: CreatedApiKeyResponseDto })
  async createApiKey(
    @CurrentUser() caller: UserPrincipal,
    @Body() dto: CreateApiKeyDto,
    @Actor() actor: ActorContext,
  ): Promise<CreatedApiKeyResponseDto> {
    const { key, raw } = await this.apiKeys.createKey(
      caller.userId,
      { name: dto.name, expiresAt: dto.expiresAt ?? null },
      caller.credential,
      actor,
    );
    return { ...toApiKeyResponse(key), key: raw };
  }

  @Get()
  @ApiOperation({
    summary: 'List your API keys',
    description: "Needs `self:access`. The caller's API keys, newest first, with when each was last used; never their secrets.",
  })
  @RequirePermission('self:access')
  @ApiOkResponse({ type: [ApiKeyResponseDto] })
  async listApiKeys(@CurrentUser() caller: UserPrincipal): Promise<ApiKeyResponseDto[]> {
    return (await this.apiKeys.listKeys(caller.userId)).map(toApiKeyResponse);
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Delete an API key',
    description:
      "Needs `self:access`. Deletes one of the caller's API keys; it stops working at once. 404 when the caller has no key with this id. " +
      'Writes an `apikey:delete` audit entry.',
  })
  @HttpCode(204)
  @RequirePermission('self:access')
  @ApiNoContentResponse()
  async deleteApiKey(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', ParseUUIDPipe) id: string,
    @Actor() actor: ActorContext,
  ): Promise<void> {
    await this.apiKeys.deleteKey(caller.userId, id, actor);
  }
}
