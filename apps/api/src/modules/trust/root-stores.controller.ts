import { Controller, Get, NotFoundException, Param, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { RequirePermission } from '../../common/auth/route-access';
import { Clock } from '../../common/clock';
import { ListWindowQueryDto, setTotalCount } from '../../common/http/pagination';
import { CertificateSummaryDto } from '../certificates/certificates.dto';
import { toCertificateSummary } from '../certificates/certificates.mapper';
import { TrustRepository } from './trust.repository';

export class RootStoreDto {
  @ApiProperty({ enum: ['mozilla', 'apple', 'microsoft', 'chrome'] }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: 'integer' }) anchorCount!: number;
  @ApiProperty({ format: 'date-time', type: String, nullable: true, description: 'null until the store was first filled.' }) updatedAt!:
    string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Where the anchors came from: a URL, `upload`, or `node:bundled`.' }) source!:
    string | null;
}

@ApiTags('certificates')
@Controller('root-stores')
export class RootStoresController {
  constructor(
    private readonly trust: TrustRepository,
    private readonly clock: Clock,
  ) {}

  @Get()
  @RequirePermission('certs:view')
  @ApiOkResponse({ type: [RootStoreDto] })
  async listRootStores(): Promise<RootStoreDto[]> {
    return (await this.trust.listStores()).map((store) => ({ ...store, updatedAt: store.updatedAt?.toISOString() ?? null }));
  }

  @Get(':id/anchors')
  @RequirePermission('certs:view')
  @ApiOkResponse({ type: [CertificateSummaryDto], description: 'X-Total-Count gives the full size.' })
  async listRootStoreAnchors(
    @Param('id') id: string,
    @Query() window: ListWindowQueryDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CertificateSummaryDto[]> {
    if (!(await this.trust.findStore(id)))
      throw new NotFoundException(`Unknown root store ${id}; known: mozilla, apple, microsoft, chrome.`);
    const { rows, total } = await this.trust.anchorsPage(id, window);
    setTotalCount(res, total);
    const now = this.clock.now();
    return rows.map((row) => toCertificateSummary(row, now));
  }
}
