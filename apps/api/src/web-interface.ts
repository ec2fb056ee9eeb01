import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';

/**
 * Where the web bundle is: beside the built API (dist/apps/api/src -> dist/apps/web), or, when the
 * API runs from its sources (the tests), in the repository's dist/.
 */
export const WEB_ROOT =
  basename(join(__dirname, '../../..')) === 'dist' ? join(__dirname, '../../web') : join(__dirname, '../../../dist/apps/web');

/** Paths the interface never answers: the API, its reference and the metrics stay as they are. */
export function isServerPath(path: string): boolean {
  return /^\/(api|api-docs|metrics)(\/|$)/.test(path);
}

const NOT_BUILT =
  'The web interface is not built. Run "npm run build" (or "npm start", which builds it), then reload.\n' +
  'The API is at /api/v1 and its reference at /api-docs/index.html.\n';

/**
 * Serves the web interface at `/` (docs/api-contract.md section 14): the bundle's files, with
 * Vite's content-hashed assets cached for good and everything else revalidated, and index.html
 * for any other GET outside the API so the app's own routes survive a reload or a bookmark.
 * Runs before Nest's router; requests it does not answer go on to Nest unchanged.
 */
export function serveWebInterface(app: { use(handler: RequestHandler): unknown }, root: string = WEB_ROOT): void {
  const index = join(root, 'index.html');
  const files = express.static(root, {
    index: false,
    redirect: false,
    dotfiles: 'ignore',
    setHeaders: (res, file) => {
      const hashed = file.startsWith(join(root, 'assets') + '/');
      res.setHeader('Cache-Control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  app.use((req: Request, res: Response, next: NextFunction) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || isServerPath(req.path)) return next();
    if (!existsSync(index)) {
      res.status(404).type('text/plain; charset=utf-8').setHeader('Cache-Control', 'no-store').send(NOT_BUILT);
      return;
    }
    files(req, res, () => {
      // A bundle file that is not there (an old page asking for a replaced bundle) is not the app.
      if (req.path.startsWith('/assets/')) {
        res.status(404).type('text/plain; charset=utf-8').send(`${req.path} is not part of this version of the web interface.\n`);
        return;
      }
      res.setHeader('Cache-Control', 'no-cache');
      res.type('text/html; charset=utf-8');
      res.sendFile(index, (error?: Error) => {
        if (error) next(error);
      });
    });
  });
}
