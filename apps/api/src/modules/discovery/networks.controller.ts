import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Put } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../../common/auth/route-access';
import { Actor } from '../audit/actor.decorator';
import type { ActorContext } from '../audit/audit.service';
import { NetworkInputDto, NetworkResponseDto, PatchNetworkDto } from './networks.dto';
import { toNetworkResponse } from './networks.mapper';
import { NetworksService } from './networks.service';

const VALIDATION =
  'Each `ranges` entry is an address, a CIDR block or a dash range of one family, 1 to 64 entries and at most 65,536 addresses in all; ' +
  '`ports` 1 to 32 unique ports from 1 to 65535. A 400 names every problem, one per line; an unknown `scannerId` is 400, a taken name 409.';

@ApiTags('discovery')
@Controller('discovery/networks')
export class NetworksController {
  constructor(private readonly networks: NetworksService) {}

  @Get()
  @ApiOperation({ summary: 'List discovery networks', description: 'Needs `discovery:view`. Every network, by name.' })
  @RequirePermission('discovery:view')
  @ApiOkResponse({ type: [NetworkResponseDto] })
  async listNetworks(): Promise<NetworkResponseDto[]> {
    return (await this.networks.listNetworks()).map(toNetworkResponse);
  }

  @Post()
  @ApiOperation({
    summary: 'Create a discovery network',
    description:
      'Needs `discovery:edit`. Address ranges and ports for a scanner to sweep on a schedule. ' +
      'Omitted fields take their defaults: `ports` [443], `scanCronExpression` `0 2 * * *`, `enabled` true, ' +
      "`scannerId` the current default scanner's id. Ranges are stored normalised. " +
      VALIDATION,
  })
  @RequirePermission('discovery:edit')
  @ApiCreatedResponse({ type: NetworkResponseDto })
  @ApiConflictResponse({ description: 'The name is taken.' })
  async createNetwork(@Body() dto: NetworkInputDto, @Actor() actor: ActorContext): Promise<NetworkResponseDto> {
    return toNetworkResponse(await this.networks.createNetwork(dto, actor));
  }

  @Get(':id')
  @ApiOperation({
    summary: 'Get a discovery network',
    description:
      'Needs `discovery:view`. `scannerId` is null after the assigned scanner was deleted: the network is then not swept until a ' +
      'scanner is assigned. 404 for an unknown id.',
  })
  @RequirePermission('discovery:view')
  @ApiOkResponse({ type: NetworkResponseDto })
  async getNetwork(@Param('id', ParseUUIDPipe) id: string): Promise<NetworkResponseDto> {
    return toNetworkResponse(await this.networks.getNetwork(id));
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Replace a discovery network',
    description:
      'Needs `discovery:edit`. Replaces every writable field; omitted optional ones return to their defaults ' +
      '(`scannerId`: the current default scanner). ' +
      VALIDATION,
  })
  @RequirePermission('discovery:edit')
  @ApiOkResponse({ type: NetworkResponseDto })
  @ApiConflictResponse({ description: 'The name is taken.' })
  async replaceNetwork(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: NetworkInputDto,
    @Actor() actor: ActorContext,
  ): Promise<NetworkResponseDto> {
    return toNetworkResponse(await this.networks.replaceNetwork(id, dto, actor));
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Update some of a discovery network',
    description: 'Needs `discovery:edit`. Changes only what it names; `scannerId: null` assigns the current default scanner. ' + VALIDATION,
  })
  @RequirePermission('discovery:edit')
  @ApiOkResponse({ type: NetworkResponseDto })
  @ApiConflictResponse({ description: 'The name is taken.' })
  async patchNetwork(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: PatchNetworkDto,
    @Actor() actor: ActorContext,
  ): Promise<NetworkResponseDto> {
    return toNetworkResponse(await this.networks.patchNetwork(id, dto, actor));
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete a discovery network', description: 'Needs `discovery:edit`. 404 for an unknown id.' })
  @HttpCode(204)
  @RequirePermission('discovery:edit')
  @ApiNoContentResponse()
  async deleteNetwork(@Param('id', ParseUUIDPipe) id: string, @Actor() actor: ActorContext): Promise<void> {
    await this.networks.deleteNetwork(id, actor);
  }
}
