import { Body, Controller, Get, HttpCode, Param, Post, Query, Res, UploadedFiles, UseInterceptors } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConsumes,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { RequirePermission } from '../../common/auth/route-access';
import { AcceptsBody } from '../../common/http/body-parsing';
import { ListWindowQueryDto, setTotalCount } from '../../common/http/pagination';
import { TOTAL_COUNT_HEADERS } from '../../common/http/response-headers';
import { CertificateSummaryDto } from '../certificates/certificates.dto';
import { Actor } from '../audit/actor.decorator';
import type { ActorContext } from '../audit/audit.service';
import {
  IMPORT_FILE_LIMIT,
  IMPORT_FORM_FIELDS,
  IMPORT_MAX_FILES,
  IMPORT_TOTAL_LIMIT,
  ImportFormInterceptor,
  ImportFormLimits,
  readImportForm,
  type UploadedPart,
} from './root-store-import-form';
import { RootStoreDto, RootStoreImportResultDto } from './root-stores.dto';
import { RootStoresService } from './root-stores.service';

@ApiTags('certificates')
@Controller('root-stores')
export class RootStoresController {
  constructor(private readonly rootStores: RootStoresService) {}

  @Get()
  @ApiOperation({
    summary: 'List root stores',
    description:
      'Needs `certs:view`. ' +
      'The four trust stores (mozilla, apple, microsoft, chrome) with their anchor count, when they were last filled and where the ' +
      'anchors came from.',
  })
  @RequirePermission('certs:view')
  @ApiOkResponse({ type: [RootStoreDto] })
  async listRootStores(): Promise<RootStoreDto[]> {
    return (await this.rootStores.listStores()).map((store) => ({ ...store, updatedAt: store.updatedAt?.toISOString() ?? null }));
  }

  @Get(':id/anchors')
  @ApiOperation({
    summary: "List a root store's trust anchors",
    description:
      "Needs `certs:view`. The store's anchors as certificate rows, by common name. A bare array: " +
      '`limit` 1 to 5000 (default 500) and `offset` choose the window, `X-Total-Count` gives the number of anchors. ' +
      '404 for an unknown store.',
  })
  @RequirePermission('certs:view')
  @ApiOkResponse({ type: [CertificateSummaryDto], description: 'X-Total-Count gives the full size.', headers: TOTAL_COUNT_HEADERS })
  async listRootStoreAnchors(
    @Param('id') id: string,
    @Query() window: ListWindowQueryDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CertificateSummaryDto[]> {
    const { rows, total } = await this.rootStores.anchorsOf(id, window);
    setTotalCount(res, total);
    return rows;
  }

  @Post('import')
  @ApiOperation({
    summary: 'Import the root stores from CCADB files',
    description:
      'Needs `settings:edit`. ' +
      'For installs without internet access: a `multipart/form-data` form with the CCADB all-included-roots CSV (`matrix`) and PEM ' +
      'reports (`pems`, repeatable), applied like the refresh-root-stores task, all or nothing. ' +
      "Answers each store's anchor count afterwards.",
  })
  @HttpCode(200)
  @RequirePermission('settings:edit')
  @AcceptsBody({ multipartLimit: IMPORT_TOTAL_LIMIT })
  @UseInterceptors(ImportFormLimits, ImportFormInterceptor)
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    description:
      'The CCADB data for installs without internet access, checked and applied like the `refresh-root-stores` task (source `upload`). ' +
      `Files of at most ${IMPORT_FILE_LIMIT / 1024 / 1024} MiB each, at most ${IMPORT_MAX_FILES} files, ${IMPORT_TOTAL_LIMIT / 1024 / 1024} MiB in all. ` +
      'Nothing changes unless every root the CSV lists is found in the PEM reports.',
    schema: {
      type: 'object',
      required: ['matrix', 'pems'],
      properties: {
        matrix: { type: 'string', format: 'binary', description: IMPORT_FORM_FIELDS.matrix },
        pems: { type: 'array', items: { type: 'string', format: 'binary' }, description: IMPORT_FORM_FIELDS.pems },
      },
    },
  })
  @ApiOkResponse({ type: RootStoreImportResultDto, description: 'The anchor count of each store after the import.' })
  @ApiBadRequestResponse({
    description:
      'Not multipart, a missing, repeated or unknown field, a CSV that lacks a required column, or PEM reports that lack roots the CSV lists. Nothing was changed.',
  })
  @ApiPayloadTooLargeResponse({ description: `A file of the form is over ${IMPORT_FILE_LIMIT / 1024 / 1024} MiB.` })
  importRootStores(
    @UploadedFiles() parts: UploadedPart[] | undefined,
    // The multipart text fields: none are expected, and saying so beats ignoring them.
    @Body() fields: unknown,
    @Actor() actor: ActorContext,
  ): Promise<RootStoreImportResultDto> {
    // The form is read here, at the edge (400 for a wrong shape); the service takes its texts.
    return this.rootStores.importUpload(readImportForm(parts, fields), actor);
  }
}
