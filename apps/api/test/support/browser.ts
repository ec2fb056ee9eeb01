/**
 * A small browser for sign-in flows: fetch with `redirect: 'manual'` and a cookie jar, following
 * redirects hop by hop as a browser does. Cookies are per host and path, not per port, as in
 * browsers (RFC 6265), so the provider's and Certkeeper's cookies on 127.0.0.1 live side by side.
 */
interface StoredCookie {
  name: string;
  value: string;
  host: string;
  path: string;
}

export interface Hop {
  url: string;
  status: number;
  location: string | null;
  contentType: string | null;
  body: string;
}

export class Browser {
  private cookies: StoredCookie[] = [];
  readonly hops: Hop[] = [];

  /** The Cookie header this browser would send to `url`. */
  cookieHeader(url: string): string {
    const target = new URL(url);
    return this.cookies
      .filter((cookie) => cookie.host === target.hostname && target.pathname.startsWith(cookie.path))
      .map((cookie) => `${cookie.name}=${cookie.value}`)
      .join('; ');
  }

  cookie(name: string): string | undefined {
    return this.cookies.find((cookie) => cookie.name === name)?.value;
  }

  /** One request, cookies sent and stored, redirects not followed. */
  async request(url: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<Hop> {
    const cookie = this.cookieHeader(url);
    const response = await fetch(url, {
      method: init.method ?? 'GET',
      body: init.body,
      redirect: 'manual',
      headers: { ...(cookie ? { cookie } : {}), ...init.headers },
      signal: AbortSignal.timeout(30_000),
    });
    for (const header of response.headers.getSetCookie()) this.store(url, header);
    const location = response.headers.get('location');
    const hop = {
      url,
      status: response.status,
      location: location === null ? null : new URL(location, url).href,
      contentType: response.headers.get('content-type'),
      body: await response.text(),
    };
    this.hops.push(hop);
    return hop;
  }

  /**
   * Follows redirects from `url` until `stop(url)` says to stop before requesting it (answered as
   * that URL, status 0) or a response is not a redirect (answered as that response).
   */
  async follow(url: string, stop: (next: string) => boolean = () => false, maxHops = 15): Promise<Hop> {
    let current = url;
    for (let hop = 0; hop < maxHops; hop += 1) {
      if (stop(current)) return { url: current, status: 0, location: null, contentType: null, body: '' };
      const answer = await this.request(current);
      if (![301, 302, 303, 307, 308].includes(answer.status) || answer.location === null) return answer;
      current = answer.location;
    }
    throw new Error(`more than ${maxHops} redirects from ${url}`);
  }

  private store(url: string, header: string): void {
    const [pair, ...attributes] = header.split(';').map((part) => part.trim());
    const separator = pair.indexOf('=');
    const name = pair.slice(0, separator);
    const value = pair.slice(separator + 1);
    const target = new URL(url);
    let path = target.pathname.replace(/\/[^/]*$/, '') || '/';
    let expired = false;
    for (const attribute of attributes) {
      const [key, val = ''] = attribute.split('=');
      if (key.toLowerCase() === 'path') path = val;
      if (key.toLowerCase() === 'max-age' && Number(val) <= 0) expired = true;
      if (key.toLowerCase() === 'expires' && Date.parse(val) <= Date.now()) expired = true;
    }
    this.cookies = this.cookies.filter((cookie) => !(cookie.name === name && cookie.host === target.hostname && cookie.path === path));
    if (!expired) this.cookies.push({ name, value, host: target.hostname, path });
  }
}
