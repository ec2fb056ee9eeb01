import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * JSON and plain text never load anything and are never framed. `default-src 'none'` also
 * neutralises a response a browser is tricked into rendering as a document.
 */
const API_POLICY = "default-src 'none'; frame-ancestors 'none'";

/**
 * The API reference (Swagger UI) loads its scripts, styles and images from /api-docs itself, uses
 * inline styles (the page's own <style> blocks and style attributes) and data: images in its CSS,
 * and its "Try it out" calls go to this origin.
 */
const DOCS_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/**
 * The web interface (GETs outside /api, /api-docs and /metrics): its scripts, styles and fonts
 * are files of this origin (no inline script or style element), certificate icons may be data:
 * images, and its only calls go to this origin's API.
 */
const WEB_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

function policyFor(req: Request): string {
  const path = req.path;
  if (path === '/api-docs' || path.startsWith('/api-docs/')) return DOCS_POLICY;
  const webPage = (req.method === 'GET' || req.method === 'HEAD') && !/^\/(api|metrics)(\/|$)/.test(path);
  return webPage ? WEB_POLICY : API_POLICY;
}

/**
 * Security headers on every response, errors and the /api-docs routes included. Hand-written
 * rather than helmet: an API needs these five, and helmet's other headers are for HTML sites.
 * `no-referrer` because nothing here benefits from telling another site where a link was
 * followed from, and the calendar feed's URL is itself a credential.
 * HSTS only when PUBLIC_URL says clients reach us over https (usually through a TLS proxy): an
 * install served over plain http must not tell browsers to insist on https for its name.
 */
export function securityHeaders(publicUrl: string | null): RequestHandler {
  const hsts = publicUrl !== null && /^https:/i.test(publicUrl);
  return (req: Request, res: Response, next: NextFunction) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Content-Security-Policy', policyFor(req));
    if (hsts) res.setHeader('Strict-Transport-Security', 'max-age=31536000');
    next();
  };
}
