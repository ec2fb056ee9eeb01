import { Body, Controller, Param, ParseUUIDPipe, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { RequirePermission } from '../../common/auth/route-access';
import { Clock } from '../../common/clock';
import { Actor } from '../audit/actor.decorator';
import type { ActorContext } from '../audit/audit.service';
import { CERTIFICATE_BODY, CERTIFICATE_MEDIA_TYPES } from './certificates.controller';
import { EndpointUploadResultDto, UploadQueryDto } from './certificates.dto';
import { toCertificateSummary } from './certificates.mapper';
import { CertificatesService } from './certificates.service';

@ApiTags('endpoints')
@Controller('endpoints/:id/certificate')
export class EndpointCertificateController {
  constructor(
    private readonly certificates: CertificatesService,
    private readonly clock: Clock,
  ) {}

  @Post()
  @RequirePermission('endpoints:edit')
  @ApiConsumes(...CERTIFICATE_MEDIA_TYPES)
  @ApiBody(CERTIFICATE_BODY)
  @ApiCreatedResponse({ type: EndpointUploadResultDto, description: 'A new link was created.' })
  @ApiOkResponse({ type: EndpointUploadResultDto, description: 'An existing link was reactivated or was already current.' })
  async uploadEndpointCertificate(
    @Param('id', ParseUUIDPipe) id: string,
    @Query() query: UploadQueryDto,
    @Body() body: unknown,
    @Actor() actor: ActorContext,
    @Res({ passthrough: true }) res: Response,
  ): Promise<EndpointUploadResultDto> {
    const upload = await this.certificates.uploadToEndpoint(
      id,
      body,
      { certUse: query.certUse ?? query.cert_use, replace: query.replace },
      actor,
    );
    res.status(upload.link === 'created' ? 201 : 200);
    return { ...upload, certificate: toCertificateSummary(upload.certificate, this.clock.now()) };
  }
}
