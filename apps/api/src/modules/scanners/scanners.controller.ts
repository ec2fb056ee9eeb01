import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Put } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../../common/auth/route-access';
import { Actor } from '../audit/actor.decorator';
import type { ActorContext } from '../audit/audit.service';
import { CreateScannerDto, PatchScannerDto, ScannerResponseDto, ScannerWithTokenResponseDto } from './scanners.dto';
import { ScannersService } from './scanners.service';

@ApiTags('scanners')
@Controller('scanners')
export class ScannersController {
  constructor(private readonly scanners: ScannersService) {}

  @Get()
  @ApiOperation({
    summary: 'List scanners',
    description:
      'Needs `scanners:view`. Every scanner, by name, with when it last called the API and whether it counts as `online` ' +
      '(it called in no longer ago than twice the longest gap of its scan schedule and at least 10 minutes); never a token.',
  })
  @RequirePermission('scanners:view')
  @ApiOkResponse({ type: [ScannerResponseDto] })
  async listScanners(): Promise<ScannerResponseDto[]> {
    return this.scanners.describeScanners();
  }

  @Post()
  @ApiOperation({
    summary: 'Create a scanner',
    description:
      'Needs `scanners:edit`. ' +
      "Answers 201 with the scanner and its token (`stx_s_...`, the agent's `SCANNER_TOKEN`), shown once: only its hash is stored. " +
      'Omitted schedule and concurrency take their defaults. 409 when the name is taken.',
  })
  @RequirePermission('scanners:edit')
  @ApiCreatedResponse({ type: ScannerWithTokenResponseDto })
  @ApiConflictResponse({ description: 'The name is taken.' })
  async createScanner(@Body() dto: CreateScannerDto, @Actor() actor: ActorContext): Promise<ScannerWithTokenResponseDto> {
    return this.scanners.createScanner(dto, actor);
  }

  @Get(':id')
  @ApiOperation({
    summary: 'Get a scanner',
    description:
      "Needs `scanners:view`. The scanner's name, default flag, scan schedule and concurrency, and when it last called the API; " +
      'never its token. 404 for an unknown id.',
  })
  @RequirePermission('scanners:view')
  @ApiOkResponse({ type: ScannerResponseDto })
  async getScanner(@Param('id', ParseUUIDPipe) id: string): Promise<ScannerResponseDto> {
    return this.scanners.describeScanner(id);
  }

  @Put(':id')
  @ApiOperation({
    summary: "Replace a scanner's settings",
    description:
      'Needs `scanners:edit`. Replaces name, schedule and concurrency; omitted optional fields return to their defaults. ' +
      '409 when the name is taken.',
  })
  @RequirePermission('scanners:edit')
  @ApiOkResponse({ type: ScannerResponseDto })
  @ApiConflictResponse({ description: 'The name is taken.' })
  async replaceScanner(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: CreateScannerDto,
    @Actor() actor: ActorContext,
  ): Promise<ScannerResponseDto> {
    return this.scanners.replaceScanner(id, dto, actor);
  }

  @Patch(':id')
  @ApiOperation({
    summary: "Update some of a scanner's settings",
    description: 'Needs `scanners:edit`. Changes only what it names. 409 when the name is taken.',
  })
  @RequirePermission('scanners:edit')
  @ApiOkResponse({ type: ScannerResponseDto })
  @ApiConflictResponse({ description: 'The name is taken.' })
  async patchScanner(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: PatchScannerDto,
    @Actor() actor: ActorContext,
  ): Promise<ScannerResponseDto> {
    return this.scanners.patchScanner(id, dto, actor);
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Delete a scanner',
    description:
      'Needs `scanners:edit`. Its endpoints read `scannerId: null` afterwards and are scanned by the default scanner; ' +
      'its discovery networks read `scannerId: null` and are not swept until a scanner is assigned. ' +
      'Refused with 409 for the only scanner and for the default scanner (make another one the default first).',
  })
  @HttpCode(204)
  @RequirePermission('scanners:edit')
  @ApiNoContentResponse()
  @ApiConflictResponse({ description: 'The scanner is the only one, or the default.' })
  async deleteScanner(@Param('id', ParseUUIDPipe) id: string, @Actor() actor: ActorContext): Promise<void> {
    await this.scanners.deleteScanner(id, actor);
  }

  @Post(':id/default')
  @ApiOperation({
    summary: 'Make a scanner the default',
    description:
      'Needs `scanners:edit`. ' +
      'The default scanner scans the endpoints that have no scanner, and new host and saml endpoints created without `scannerId` are ' +
      'assigned to it. The previous default stays as an ordinary scanner.',
  })
  @HttpCode(200)
  @RequirePermission('scanners:edit')
  @ApiOkResponse({ type: ScannerResponseDto })
  async makeDefaultScanner(@Param('id', ParseUUIDPipe) id: string, @Actor() actor: ActorContext): Promise<ScannerResponseDto> {
    return this.scanners.makeDefault(id, actor);
  }

  @Post(':id/regenerate-token')
  @ApiOperation({
    summary: "Regenerate a scanner's token",
    description:
      'Needs `scanners:edit`. Answers a new token, shown once; the old one stops working at once. ' +
      'Name, schedule, default flag, assigned endpoints and discovery networks are kept. Audited as `scanner:regenerate_token`.',
  })
  @HttpCode(200)
  @RequirePermission('scanners:edit')
  @ApiOkResponse({ type: ScannerWithTokenResponseDto })
  async regenerateScannerToken(@Param('id', ParseUUIDPipe) id: string, @Actor() actor: ActorContext): Promise<ScannerWithTokenResponseDto> {
    return this.scanners.regenerateToken(id, actor);
  }
}
