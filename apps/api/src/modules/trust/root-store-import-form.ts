import {
  BadRequestException,
  type CallHandler,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
  PayloadTooLargeException,
} from '@nestjs/common';
import { AnyFilesInterceptor, type MulterModuleOptions } from '@nestjs/platform-express';
import type { IncomingMessage } from 'node:http';
import type { Writable } from 'node:stream';
import { catchError, type Observable, throwError } from 'rxjs';
import { multipartBody } from '../../common/http/body-parsing';
import type { CcadbTexts } from './root-store-refresher';

const MiB = 1024 * 1024;
/** Per file, as for the other certificate uploads (docs/api-contract.md section 1). */
export const IMPORT_FILE_LIMIT = 10 * MiB;
/**
 * The CSV plus the PEM reports. CCADB's decade reports can pass 10 MiB; its per-year reports
 * (NotBeforeYear=1994 onwards) stay well under, so the count leaves room for one file a year.
 */
export const IMPORT_MAX_FILES = 48;
/**
 * The whole form, as the route declares it to BodyParsingInterceptor, which counts the bytes as
 * they arrive whether or not Content-Length is sent: with the parsed files, twice this is the
 * memory one import may take.
 */
export const IMPORT_TOTAL_LIMIT = 64 * MiB;

/** The part of multer's file record the import reads (memory storage). */
export interface UploadedPart {
  fieldname: string;
  buffer: Buffer;
}

export const IMPORT_FORM_FIELDS = {
  matrix: 'The CCADB all-included-roots CSV (AllIncludedRootCertsCSV), exactly one file.',
  pems: 'PEM reports holding the certificates of every root the CSV lists; one or more files.',
} as const;

// multer's streamHandler option (multer 2.x) is missing from Nest's option type.
const formOptions: MulterModuleOptions & { streamHandler(req: IncomingMessage, parser: Writable): void } = {
  limits: { fileSize: IMPORT_FILE_LIMIT, files: IMPORT_MAX_FILES, fields: IMPORT_MAX_FILES },
  // BodyParsingInterceptor has read the form already, counting it against IMPORT_TOTAL_LIMIT.
  streamHandler: (req, parser) => parser.end(multipartBody(req) ?? Buffer.alloc(0)),
};

/** Parses the multipart form into memory; files are refused past IMPORT_FILE_LIMIT (413) or IMPORT_MAX_FILES (400). */
export const ImportFormInterceptor = AnyFilesInterceptor(formOptions);

/** Words multer's limit errors ("File too large", "Too many files") for an operator. Bind it before ImportFormInterceptor. */
@Injectable()
export class ImportFormLimits implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      catchError((error: unknown) => {
        if (error instanceof PayloadTooLargeException) {
          return throwError(() => new PayloadTooLargeException(`Each file of the import may be at most ${IMPORT_FILE_LIMIT / MiB} MiB.`));
        }
        if (error instanceof BadRequestException && /too many (files|fields|parts)/i.test(error.message)) {
          return throwError(
            () => new BadRequestException(`The form has too many parts: the import takes at most ${IMPORT_MAX_FILES} files.`),
          );
        }
        return throwError(() => error);
      }),
    );
  }
}

const FORM_SHAPE =
  "The import takes multipart/form-data with one 'matrix' file (the CCADB CSV) and one or more 'pems' files (PEM reports).";

/**
 * The texts of a valid import form, or a 400 naming what is wrong. `parts` is undefined when the
 * request was not multipart (multer only reads multipart bodies); `fields` holds its text fields.
 */
export function readImportForm(parts: UploadedPart[] | undefined, fields: unknown): CcadbTexts {
  if (parts === undefined) throw new BadRequestException(FORM_SHAPE);
  const textFields = fields !== null && typeof fields === 'object' ? Object.keys(fields) : [];
  const sentAsText = textFields.filter((name) => name in IMPORT_FORM_FIELDS);
  if (sentAsText.length > 0) {
    throw new BadRequestException(
      `Send ${sentAsText.map((name) => `'${name}'`).join(' and ')} as file parts (curl -F ${sentAsText[0]}=@file), not as text.`,
    );
  }
  const unknownFiles = parts.map((part) => part.fieldname).filter((name) => !(name in IMPORT_FORM_FIELDS));
  const unexpected = [...new Set([...textFields, ...unknownFiles])];
  if (unexpected.length > 0) {
    throw new BadRequestException(`Unexpected form field(s) ${unexpected.map((name) => `'${name}'`).join(', ')}. ${FORM_SHAPE}`);
  }
  const matrix = parts.filter((part) => part.fieldname === 'matrix');
  const pems = parts.filter((part) => part.fieldname === 'pems');
  if (matrix.length !== 1) {
    throw new BadRequestException(
      matrix.length === 0
        ? `The form has no 'matrix' file. ${FORM_SHAPE}`
        : `The form has ${matrix.length} 'matrix' files; send exactly one.`,
    );
  }
  if (pems.length === 0) throw new BadRequestException(`The form has no 'pems' file. ${FORM_SHAPE}`);
  return { matrix: matrix[0].buffer.toString('utf8'), pemReports: pems.map((part) => part.buffer.toString('utf8')) };
}
