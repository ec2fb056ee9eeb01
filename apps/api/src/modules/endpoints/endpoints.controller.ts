import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Put, Query, Res } from '@nestjs/common';
import { ApiBody, ApiConflictResponse, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { RequirePermission } from '../../common/auth/route-access';
import { Clock } from '../../common/clock';
import { ApiPageResponse, ListWindowQueryDto, type Page, setTotalCount, toPage } from '../../common/http/pagination';
import { Actor } from '../audit/actor.decorator';
import type { ActorContext } from '../audit/audit.service';
import {
  BulkResultDto,
  EndpointDetailResponseDto,
  EndpointInputDto,
  EndpointListQueryDto,
  EndpointResponseDto,
  ScanHistoryRowDto,
  TlsProfileResponseDto,
} from './endpoints.dto';
import { toBulkResult, toCurrentCertificate, toEndpointResponse, toScanHistoryRow, toTlsProfile } from './endpoints.mapper';
import { EndpointsService } from './endpoints.service';

@ApiTags('endpoints')
@Controller('endpoints')
export class EndpointsController {
  constructor(
    private readonly endpoints: EndpointsService,
    private readonly clock: Clock,
  ) {}

  @Get()
  @RequirePermission('endpoints:view')
  @ApiPageResponse(EndpointResponseDto)
  async listEndpoints(@Query() query: EndpointListQueryDto): Promise<Page<EndpointResponseDto>> {
    const { rows, total } = await this.endpoints.listEndpoints({
      type: query.type,
      enabled: query.enabled,
      hasError: query.has_error,
      tags: query.tag,
      q: query.q,
      limit: query.limit,
      offset: query.offset,
    });
    return toPage(rows.map(toEndpointResponse), total, query);
  }

  @Post()
  @RequirePermission('endpoints:edit')
  @ApiCreatedResponse({ type: EndpointResponseDto })
  @ApiConflictResponse({ description: 'An endpoint with the same identity exists on the same scanner.' })
  async createEndpoint(@Body() input: EndpointInputDto, @Actor() actor: ActorContext): Promise<EndpointResponseDto> {
    return toEndpointResponse(await this.endpoints.createEndpoint(input, actor));
  }

  @Post('bulk')
  @HttpCode(200)
  @RequirePermission('endpoints:edit')
  @ApiBody({ type: [EndpointInputDto] })
  @ApiOkResponse({ type: BulkResultDto, description: 'Per-row results; a failing row never blocks the others.' })
  async bulkCreateEndpoints(@Body() rows: unknown, @Actor() actor: ActorContext): Promise<BulkResultDto> {
    return toBulkResult(await this.endpoints.bulkCreate(rows, actor));
  }

  @Get(':id')
  @RequirePermission('endpoints:view')
  @ApiOkResponse({ type: EndpointDetailResponseDto })
  async getEndpoint(@Param('id', ParseUUIDPipe) id: string): Promise<EndpointDetailResponseDto> {
    const [endpoint, current] = await Promise.all([this.endpoints.getEndpoint(id), this.endpoints.currentCertificates(id)]);
    const now = this.clock.now();
    return { ...toEndpointResponse(endpoint), currentCertificates: current.map((row) => toCurrentCertificate(row, now)) };
  }

  @Put(':id')
  @RequirePermission('endpoints:edit')
  @ApiOkResponse({ type: EndpointResponseDto, description: 'Replaces the writable fields; omitted ones return to their defaults.' })
  @ApiConflictResponse({ description: 'An endpoint with the same identity exists on the same scanner.' })
  async replaceEndpoint(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() input: EndpointInputDto,
    @Actor() actor: ActorContext,
  ): Promise<EndpointResponseDto> {
    return toEndpointResponse(await this.endpoints.updateEndpoint(id, input, 'replace', actor));
  }

  @Patch(':id')
  @RequirePermission('endpoints:edit')
  @ApiOkResponse({ type: EndpointResponseDto, description: 'Changes only the fields it names.' })
  @ApiConflictResponse({ description: 'An endpoint with the same identity exists on the same scanner.' })
  async patchEndpoint(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() input: EndpointInputDto,
    @Actor() actor: ActorContext,
  ): Promise<EndpointResponseDto> {
    return toEndpointResponse(await this.endpoints.updateEndpoint(id, input, 'patch', actor));
  }

  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('endpoints:edit')
  @ApiNoContentResponse()
  async deleteEndpoint(@Param('id', ParseUUIDPipe) id: string, @Actor() actor: ActorContext): Promise<void> {
    await this.endpoints.deleteEndpoint(id, actor);
  }

  @Get(':id/history')
  @RequirePermission('endpoints:view')
  @ApiOkResponse({ type: [ScanHistoryRowDto], description: 'Newest first; X-Total-Count gives the full size. Empty for manual endpoints.' })
  async getEndpointHistory(
    @Param('id', ParseUUIDPipe) id: string,
    @Query() window: ListWindowQueryDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ScanHistoryRowDto[]> {
    const { rows, total } = await this.endpoints.history(id, window);
    setTotalCount(res, total);
    return rows.map(toScanHistoryRow);
  }

  @Get(':id/tls-profile')
  @RequirePermission('endpoints:view')
  @ApiOkResponse({ type: TlsProfileResponseDto })
  async getEndpointTlsProfile(@Param('id', ParseUUIDPipe) id: string): Promise<TlsProfileResponseDto> {
    return toTlsProfile(await this.endpoints.tlsProfile(id));
  }

  @Get(':id/tags')
  @RequirePermission('tags:view')
  @ApiOkResponse({ type: [String] })
  getEndpointTags(@Param('id', ParseUUIDPipe) id: string): Promise<string[]> {
    return this.endpoints.getTags(id);
  }

  @Put(':id/tags')
  @RequirePermission('endpoints:edit')
  @ApiBody({ schema: { type: 'array', items: { type: 'string' }, example: ['env:prod', 'team:payments'] } })
  @ApiOkResponse({ type: [String] })
  replaceEndpointTags(@Param('id', ParseUUIDPipe) id: string, @Body() tags: unknown, @Actor() actor: ActorContext): Promise<string[]> {
    return this.endpoints.replaceTags(id, tags, actor);
  }
}
