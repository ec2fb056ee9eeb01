import { Logger, StreamableFile, type Type } from '@nestjs/common';
import type { Response } from 'express';
import { pipeline, type Readable, Transform } from 'node:stream';
import { sendPlainText } from '../plain-text';
import { RetryLaterException } from '../retry-later.exception';
import { csvColumnsOf, csvWriter, toRecord } from './csv-cells';

/**
 * Each export holds a pooled database connection for as long as its client reads (20 in the pool,
 * data-source-options.ts), so:
 * - `concurrent`: more exports at once than this are refused with 429, and slow downloads can never
 *   starve the rest of the API;
 * - `idleMs`: an export whose client has read nothing for this long (the response is stuck behind
 *   backpressure, or the first fetch never returns) is aborted. A stalled client sends no fetch, so
 *   no database timeout would ever end it. Tests shorten it.
 */
export const csvExportLimits = { concurrent: 4, idleMs: 120_000 };

let exportsRunning = 0;

/** The client stopped reading: not a failure of ours worth an error log line. */
class ExportStalledError extends Error {}

/** Bytes gathered before a write to the response. */
const WRITE_SIZE = 64 * 1024;

/**
 * csv-stringify emits one small chunk per record, and each chunk piped into the response is a
 * write and an HTTP chunk of its own: gathering them into 64 KiB writes costs a copy and saves a
 * write per row.
 */
function coalescing(): Transform {
  let parts: Buffer[] = [];
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      parts.push(chunk);
      size += chunk.length;
      if (size < WRITE_SIZE) return done();
      const gathered = Buffer.concat(parts, size);
      parts = [];
      size = 0;
      done(null, gathered);
    },
    flush(done) {
      done(null, size > 0 ? Buffer.concat(parts, size) : undefined);
    },
  });
}

const logger = new Logger('CsvExport');

export interface CsvExport<Row> {
  /** Names the download: `certkeeper-<list>-<YYYY-MM-DD>.csv`. */
  list: string;
  /** The JSON item's DTO: its documented scalar fields are the columns (csvColumnsOf). */
  item: Type<unknown>;
  /** Opens the object-mode stream of database rows; destroying it must release what it holds. */
  open: () => Promise<Readable>;
  /** The mapping function of the JSON list, so that a CSV row is exactly a JSON item. */
  toItem: (row: Row) => object;
  /** The application clock's now: the date in the file name. */
  now: Date;
}

/**
 * Streams every row of an export as RFC 4180 CSV (header row of the JSON field names, CRLF,
 * quoting where needed, csvWriter) with backpressure from the client back to the database cursor:
 * rows -> JSON item -> CSV record -> csvWriter -> 64 KiB writes -> response. Nest pipes the returned file into
 * the response and destroys it when the client goes away; the pipeline then destroys the row
 * stream, which closes the cursor and releases the connection. A failure before the first byte is
 * a plain-text 500; after it, the response is destroyed so that a truncated file never looks whole.
 */
export async function streamCsv<Row>(spec: CsvExport<Row>): Promise<StreamableFile> {
  const columns = csvColumnsOf(spec.item);
  if (exportsRunning >= csvExportLimits.concurrent) {
    throw new RetryLaterException(`Too many CSV exports are running; try again in a few seconds.`, 5);
  }
  exportsRunning += 1;
  let rows: Readable;
  try {
    rows = await spec.open();
  } catch (error) {
    exportsRunning -= 1;
    throw error;
  }
  let lastProgress = Date.now();
  const toRecords = new Transform({
    objectMode: true,
    transform(row: Row, _encoding, done) {
      lastProgress = Date.now();
      try {
        done(null, toRecord(spec.toItem(row) as Record<string, unknown>, columns));
      } catch (error) {
        done(error as Error);
      }
    },
  });
  const csv = csvWriter(columns);
  const out = coalescing();
  const watchdog = setInterval(
    () => {
      if (Date.now() - lastProgress > csvExportLimits.idleMs) {
        out.destroy(new ExportStalledError(`The export made no progress for ${csvExportLimits.idleMs} ms (the client stopped reading).`));
      }
    },
    Math.min(5000, csvExportLimits.idleMs),
  ).unref();
  rows.once('close', () => {
    exportsRunning -= 1;
    clearInterval(watchdog);
  });
  // Every stream of the chain is destroyed when any fails or closes early; what failed is reported
  // to the response through the last stream's 'error' (Nest's listener, then the handler below).
  pipeline(rows, toRecords, csv, out, () => undefined);

  const file = new StreamableFile(out, {
    type: 'text/csv; charset=utf-8',
    disposition: `attachment; filename="certkeeper-${spec.list}-${spec.now.toISOString().slice(0, 10)}.csv"`,
  });
  return file.setErrorHandler((error, response) => {
    const res = response as unknown as Response; // the Express adapter's response
    const requestId = res.req.requestId ?? 'unknown';
    if (res.destroyed) return; // the client left: nothing failed that needs a log line
    if (error instanceof ExportStalledError) {
      logger.warn(`CSV export ${spec.list} aborted: ${error.message}`, { requestId });
      res.destroy();
      return;
    }
    logger.error(`CSV export ${spec.list} failed: ${error.message}`, { requestId, stack: error.stack });
    if (!res.headersSent) {
      res.removeHeader('Content-Disposition');
      sendPlainText(res, 500, `Internal server error. Request id: ${requestId}`);
      return;
    }
    res.destroy();
  });
}
