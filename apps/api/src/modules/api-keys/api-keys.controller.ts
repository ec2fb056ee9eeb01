import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { UserPrincipal } from '../../common/auth/principal';
import { CurrentUser, RequirePermission } from '../../common/auth/route-access';
import { ApiKeyResponseDto, CreateApiKeyDto, CreatedApiKeyResponseDto, toApiKeyResponse } from './api-keys.dto';
import { ApiKeysService } from './api-keys.service';

@ApiTags('me')
@Controller('me/api-keys')
export class ApiKeysController {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @Post()
  @RequirePermission('self:access')
  @ApiCreatedResponse({ type: CreatedApiKeyResponseDto })
  async createApiKey(@CurrentUser() caller: UserPrincipal, @Body() dto: CreateApiKeyDto): Promise<CreatedApiKeyResponseDto> {
    const { key, raw } = await this.apiKeys.createKey(caller.userId, dto.name, dto.expiresAt ?? null);
    return { ...toApiKeyResponse(key), key: raw };
  }

  @Get()
  @RequirePermission('self:access')
  @ApiOkResponse({ type: [ApiKeyResponseDto] })
  async listApiKeys(@CurrentUser() caller: UserPrincipal): Promise<ApiKeyResponseDto[]> {
    return (await this.apiKeys.listKeys(caller.userId)).map(toApiKeyResponse);
  }

  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('self:access')
  @ApiNoContentResponse()
  async deleteApiKey(@CurrentUser() caller: UserPrincipal, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    await this.apiKeys.deleteKey(caller.userId, id);
  }
}
