import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Put } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../../common/auth/route-access';
import { Actor } from '../audit/actor.decorator';
import type { ActorContext } from '../audit/audit.service';
import { CreateScannerDto, PatchScannerDto, ScannerResponseDto, ScannerWithTokenResponseDto, toScannerResponse } from './scanners.dto';
import { ScannersService } from './scanners.service';

@ApiTags('scanners')
@Controller('scanners')
export class ScannersController {
  constructor(private readonly scanners: ScannersService) {}

  @Get()
  @RequirePermission('scanners:view')
  @ApiOkResponse({ type: [ScannerResponseDto] })
  async listScanners(): Promise<ScannerResponseDto[]> {
    return (await this.scanners.listScanners()).map(toScannerResponse);
  }

  @Post()
  @RequirePermission('scanners:edit')
  @ApiCreatedResponse({ type: ScannerWithTokenResponseDto })
  @ApiConflictResponse({ description: 'The name is taken.' })
  async createScanner(@Body() dto: CreateScannerDto, @Actor() actor: ActorContext): Promise<ScannerWithTokenResponseDto> {
    const { scanner, token } = await this.scanners.createScanner(dto, actor);
    return { ...toScannerResponse(scanner), token };
  }

  @Get(':id')
  @RequirePermission('scanners:view')
  @ApiOkResponse({ type: ScannerResponseDto })
  async getScanner(@Param('id', ParseUUIDPipe) id: string): Promise<ScannerResponseDto> {
    return toScannerResponse(await this.scanners.getScanner(id));
  }

  @Put(':id')
  @RequirePermission('scanners:edit')
  @ApiOkResponse({ type: ScannerResponseDto })
  @ApiConflictResponse({ description: 'The name is taken.' })
  async replaceScanner(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: CreateScannerDto,
    @Actor() actor: ActorContext,
  ): Promise<ScannerResponseDto> {
    return toScannerResponse(await this.scanners.replaceScanner(id, dto, actor));
  }

  @Patch(':id')
  @RequirePermission('scanners:edit')
  @ApiOkResponse({ type: ScannerResponseDto })
  @ApiConflictResponse({ description: 'The name is taken.' })
  async patchScanner(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: PatchScannerDto,
    @Actor() actor: ActorContext,
  ): Promise<ScannerResponseDto> {
    return toScannerResponse(await this.scanners.patchScanner(id, dto, actor));
  }

  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('scanners:edit')
  @ApiNoContentResponse()
  @ApiConflictResponse({ description: 'The scanner is the only one, or the default.' })
  async deleteScanner(@Param('id', ParseUUIDPipe) id: string, @Actor() actor: ActorContext): Promise<void> {
    await this.scanners.deleteScanner(id, actor);
  }

  @Post(':id/default')
  @HttpCode(200)
  @RequirePermission('scanners:edit')
  @ApiOkResponse({ type: ScannerResponseDto })
  async makeDefaultScanner(@Param('id', ParseUUIDPipe) id: string, @Actor() actor: ActorContext): Promise<ScannerResponseDto> {
    return toScannerResponse(await this.scanners.makeDefault(id, actor));
  }

  @Post(':id/regenerate-token')
  @HttpCode(200)
  @RequirePermission('scanners:edit')
  @ApiOkResponse({ type: ScannerWithTokenResponseDto })
  async regenerateScannerToken(@Param('id', ParseUUIDPipe) id: string, @Actor() actor: ActorContext): Promise<ScannerWithTokenResponseDto> {
    const { scanner, token } = await this.scanners.regenerateToken(id, actor);
    return { ...toScannerResponse(scanner), token };
  }
}
