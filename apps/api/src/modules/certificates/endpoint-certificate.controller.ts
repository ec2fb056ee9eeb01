import { Body, Controller, Param, ParseUUIDPipe, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { RequirePermission } from '../../common/auth/route-access';
import { AcceptsBody, UPLOAD_BODY_LIMIT } from '../../common/http/body-parsing';
import { UploadBodyPipe, type UploadPayload } from './upload-body';
import { Actor } from '../audit/actor.decorator';
import type { ActorContext } from '../audit/audit.service';
import { CERTIFICATE_BODY, CERTIFICATE_MEDIA_TYPES } from './certificates.controller';
import { EndpointUploadResultDto, UploadQueryDto } from './certificates.dto';
import { CertificatesService } from './certificates.service';

@ApiTags('endpoints')
@Controller('endpoints/:id/certificate')
export class EndpointCertificateController {
  constructor(private readonly certificates: CertificatesService) {}

  @Post()
  @ApiOperation({
    summary: 'Upload a certificate to an endpoint',
    description:
      'Needs `endpoints:edit`. ' +
      'Stores every certificate of the body and links the first (of a PKCS #7 bundle: its leaf) to the endpoint with `certUse` (the ' +
      "query's `certUse` or `cert_use`, else the JSON body's, default `manual`). " +
      "With `replace=true` (the default) the endpoint's other current certificates of that use move to history; " +
      '`replace=false` keeps them, as in a SAML key rollover. ' +
      '201 when a new link was created, 200 when an existing one was reactivated or already current; 404 for an unknown endpoint.',
  })
  @RequirePermission('endpoints:edit')
  @AcceptsBody({ limit: UPLOAD_BODY_LIMIT, certificates: true })
  @ApiConsumes(...CERTIFICATE_MEDIA_TYPES)
  @ApiBody(CERTIFICATE_BODY)
  @ApiCreatedResponse({ type: EndpointUploadResultDto, description: 'A new link was created.' })
  @ApiOkResponse({ type: EndpointUploadResultDto, description: 'An existing link was reactivated or was already current.' })
  async uploadEndpointCertificate(
    @Param('id', ParseUUIDPipe) id: string,
    @Query() query: UploadQueryDto,
    @Body(UploadBodyPipe) body: UploadPayload,
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
    return upload;
  }
}
