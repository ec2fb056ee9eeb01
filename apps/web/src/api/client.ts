import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '@certkeeper/api-client';
import { clearSession, readSession } from '../auth/session';

export type Schemas = components['schemas'];
export type Role = Schemas['LoginUserDto']['role'];

/**
 * Called when the API answers 401 to a signed-in request: the session is over (expired, signed
 * out elsewhere, user disabled). The app sends the person to sign-in and back afterwards.
 */
let onUnauthorized: (token: string) => void = () => undefined;
export function setUnauthorizedHandler(handler: (token: string) => void): void {
  onUnauthorized = handler;
}

const auth: Middleware = {
  onRequest({ request }) {
    const session = readSession();
    if (session) request.headers.set('Authorization', `Bearer ${session.token}`);
    return request;
  },
  onResponse({ request, response }) {
    const token = request.headers.get('Authorization')?.replace(/^Bearer /, '');
    if (response.status === 401 && token) {
      clearSession();
      onUnauthorized(token);
    }
    return response;
  },
};

/**
 * The one client of the API, typed by the types generated from the committed OpenAPI description
 * (libs/api-client/src/schema.d.ts): a renamed field or a removed route fails the type check.
 * JSON for data, plain text for errors (the list routes also offer text/csv, which this app asks
 * for only through download links).
 */
export const api = createClient<paths, 'application/json' | 'text/plain'>({ baseUrl: window.location.origin });
api.use(auth);

/** The sentence the API sent with an error (its bodies are plain text), or a fallback naming the status. */
export function errorMessage(error: unknown, response: Response): string {
  if (typeof error === 'string' && error.trim() !== '') return error.trim();
  return `The server answered ${response.status} ${response.statusText}.`.replace(' .', '.');
}

/** A sentence for a call that got no answer (network failure, server down). */
export function unreachable(error: unknown): string {
  return `The server could not be reached (${error instanceof Error ? error.message : String(error)}).`;
}
