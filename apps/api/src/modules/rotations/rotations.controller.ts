import { Controller, Get, Param, ParseUUIDPipe, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { RequirePermission } from '../../common/auth/route-access';
import { setTotalCount } from '../../common/http/pagination';
import { TOTAL_COUNT_HEADERS } from '../../common/http/response-headers';
import { RotationDto, RotationsQueryDto } from './rotations.dto';
import { toRotation } from './rotations.mapper';
import { RotationsService } from './rotations.service';

@ApiTags('endpoints')
@Controller('endpoints')
export class RotationsController {
  constructor(private readonly rotations: RotationsService) {}

  @Get(':id/rotations')
  @ApiOperation({
    summary: "List an endpoint's certificate rotations",
    description:
      'Needs `endpoints:view`. ' +
      'One row each time a current certificate of the endpoint was replaced by another (scans and uploads alike), newest first: ' +
      'the role, both fingerprints, every compared field that changed (`issuer`, `trustedBy`, `chainComplete`, `keyAlgorithm`, ' +
      '`keySize`, `signatureAlgorithm`, `sans`, `extendedKeyUsage`, `lifetimeDays`) and the regressions among them, with `rollback` ' +
      'when the new certificate was issued before the old one. A first certificate is not a rotation. A bare array: ' +
      '`limit` 1 to 5000 (default 500) and `offset` choose the window, `X-Total-Count` gives the number of rotations. ' +
      '404 for an unknown id.',
  })
  @RequirePermission('endpoints:view')
  @ApiOkResponse({ type: [RotationDto], description: 'Newest first; X-Total-Count gives the full number.', headers: TOTAL_COUNT_HEADERS })
  async getEndpointRotations(
    @Param('id', ParseUUIDPipe) id: string,
    @Query() query: RotationsQueryDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<RotationDto[]> {
    const { rows, total } = await this.rotations.list(id, { limit: query.limit, offset: query.offset });
    setTotalCount(res, total);
    return rows.map(toRotation);
  }
}
