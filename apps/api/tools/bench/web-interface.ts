import { readFile } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { withSeededApi } from './inventory-seed';
import { type ApiProcess, measure, median, ROOT } from './lib';

/**
 * The web interface's figures (docs/performance.md):
 * - the gzipped size of the JavaScript the sign-in page loads before it can run: index.html's
 *   module script and the modules it preloads, each gzipped at level 9 (target <= 250 KB);
 * - in headless Chromium on loopback, the time from navigation to the endpoint list rendered (its
 *   first rows and the total shown) with 100,000 endpoints in the database, median of RUNS
 *   navigations after a warm-up (target <= 1 s); and the same until the Expiring screen shows its
 *   first page (every current pair by soonest expiry, within the default 30 days: about 15% of
 *   the seeded links; target <= 1.5 s). The session is put in sessionStorage before each
 *   navigation, so signing in is not measured. Runs with an empty HTTP cache (a fresh browser
 *   context each time: the first visit) and with a warm one (the same tab again), each broken down
 *   by the page's own Resource Timing into what the browser waited for and what rendering took.
 */

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const WEB_ROOT = join(ROOT, 'dist/apps/web');
const SIZE_TARGET_KB = 250;
/** The screens measured: where the page is, the list call it waits for, and the status its first page shows. */
interface Screen {
  label: string;
  path: string;
  listPath: string;
  /** Matched against the status text with spaces, commas and dots removed. */
  status: string;
  targetMs: number;
}
const SCREENS: Screen[] = [
  { label: 'endpoint list', path: '/endpoints', listPath: '/api/v1/endpoints', status: `of${ROWS}(?!\\d)`, targetMs: 1000 },
  { label: 'Expiring', path: '/expiring', listPath: '/api/v1/certificates/expiring', status: 'Certificates1–50of\\d+', targetMs: 1500 },
];
// apps/web/src/auth/session.ts: where the web interface keeps its session.
const SESSION_KEY = 'certkeeper.session';

interface Asset {
  path: string;
  bytes: number;
  gzipped: number;
}

/** The tags of an HTML document with their attributes (names lower-cased); enough for Vite's index.html. */
function tags(html: string, name: string): Record<string, string>[] {
  return [...html.matchAll(new RegExp(`<${name}\\b([^>]*)>`, 'gi'))].map(([, attributes]) =>
    Object.fromEntries(
      [...attributes.matchAll(/([\w-]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s"'>]+))?/g)].map(([, key, value = '']) => [
        key.toLowerCase(),
        value.replace(/^["']|["']$/g, ''),
      ]),
    ),
  );
}

/** The JavaScript the first page load fetches: the module entry and its modulepreload links. */
async function initialJavaScript(): Promise<Asset[]> {
  const html = await readFile(join(WEB_ROOT, 'index.html'), 'utf8');
  const entries = tags(html, 'script').filter((script) => script.type === 'module' && script.src);
  const preloads = tags(html, 'link').filter((link) => link.rel?.split(/\s+/).includes('modulepreload') && link.href);
  const paths = [...new Set([...entries.map((script) => script.src), ...preloads.map((link) => link.href)])];
  if (entries.length === 0) throw new Error(`${WEB_ROOT}/index.html has no module script: is the bundle built?`);
  return Promise.all(
    paths.map(async (path) => {
      const content = await readFile(join(WEB_ROOT, new URL(path, 'http://web.invalid/').pathname));
      return { path, bytes: content.length, gzipped: gzipSync(content, { level: 9 }).length };
    }),
  );
}

/** What one navigation took, in milliseconds from its start (the page's performance clock). */
interface Navigation {
  html: number;
  scripts: number;
  /** GET /me, which the app waits for to know the role before it shows a screen. */
  meAnswered: number;
  listRequested: number;
  listAnswered: number;
  listUrl: string;
  rendered: number;
  /** Main-thread tasks over 50 ms (script evaluation, React rendering) before the list showed, summed. */
  longTasks: number;
}

/**
 * Installed in every document before the page's scripts (the page's CSP forbids evaluating strings,
 * which page.waitForFunction would do): checks on each animation frame whether the list shows rows
 * and the total, then resolves with that moment and when the page's resources arrived, or with
 * null after a minute.
 */
const WATCH_RENDERED = (screen: Screen) => `window.__listRendered = new Promise((resolve) => {
  const longTasks = [];
  new PerformanceObserver((list) => longTasks.push(...list.getEntries())).observe({ type: 'longtask', buffered: true });
  const measured = () => {
    const statusShowsTotal = [...document.querySelectorAll('[role=status]')].some((status) =>
      /${screen.status}/.test(status.textContent.replace(/[\\s,.\\u00a0\\u202f]/g, '')));
    const rowsShown = [...document.querySelectorAll('table tbody tr')].some((row) => row.getClientRects().length > 0);
    if (!statusShowsTotal || !rowsShown) return null;
    const rendered = performance.now();
    const resources = performance.getEntriesByType('resource');
    const named = (path) => resources.find((entry) => new URL(entry.name).pathname === path);
    const me = named('/api/v1/me');
    const list = named('${screen.listPath}');
    const scripts = resources.filter((entry) => /\\.js$/.test(new URL(entry.name).pathname));
    const [page] = performance.getEntriesByType('navigation');
    return {
      html: page.responseEnd,
      scripts: Math.max(0, ...scripts.map((entry) => entry.responseEnd)),
      meAnswered: me ? me.responseEnd : NaN,
      listRequested: list ? list.startTime : NaN,
      listAnswered: list ? list.responseEnd : NaN,
      listUrl: list ? list.name : '',
      rendered,
      longTasks: longTasks.filter((task) => task.startTime < rendered).reduce((sum, task) => sum + task.duration, 0),
    };
  };
  const check = () => {
    const result = measured();
    if (result || performance.now() > 60000) resolve(result);
    else requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
});`;

async function navigate(page: Page, baseUrl: string, screen: Screen): Promise<Navigation> {
  await page.goto(`${baseUrl}${screen.path}`, { waitUntil: 'commit' });
  const result = await page.evaluate<Navigation | null>('window.__listRendered');
  if (result) return result;
  const text = await page.evaluate('document.body.innerText').catch(() => '');
  throw new Error(`the ${screen.label} did not show its first page within a minute at ${page.url()}; the page read:\n${String(text)}`);
}

/** The session the web interface stores after signing in (apps/web/src/auth/session.ts). */
async function sessionOf(api: ApiProcess, token: string): Promise<string> {
  const response = await fetch(`${api.baseUrl}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) throw new Error(`GET /me answered ${response.status}`);
  const { id, email, name, role } = (await response.json()) as { id: string; email: string; name: string; role: string };
  const { exp } = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { exp: number };
  return JSON.stringify({ token, expiresAt: new Date(exp * 1000).toISOString(), user: { id, email, name, role } });
}

async function signedInContext(browser: Browser, session: string, screen: Screen): Promise<BrowserContext> {
  const context = await browser.newContext();
  // The session and the watcher, before any of the page's scripts on every document (about:blank has no storage).
  await context.addInitScript({
    content: `try { sessionStorage.setItem(${JSON.stringify(SESSION_KEY)}, ${JSON.stringify(session)}); } catch {}\n${WATCH_RENDERED(screen)}`,
  });
  return context;
}

/** A warm-up navigation, then RUNS measured ones: each in a fresh context (cold) or all in one tab (warm). */
async function navigations(
  browser: Browser,
  baseUrl: string,
  session: string,
  screen: Screen,
  cache: 'cold' | 'warm',
): Promise<Navigation[]> {
  const results: Navigation[] = [];
  let shared: BrowserContext | undefined;
  try {
    for (let run = 0; run <= RUNS; run += 1) {
      const context =
        cache === 'warm' ? (shared ??= await signedInContext(browser, session, screen)) : await signedInContext(browser, session, screen);
      const page = context.pages()[0] ?? (await context.newPage());
      const result = await navigate(page, baseUrl, screen);
      if (cache === 'cold') await context.close();
      if (run > 0) results.push(result);
    }
  } finally {
    await shared?.close();
  }
  return results;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(0).padStart(5)} ms` : '    - ms');

function printNavigations(label: string, results: Navigation[], targetMs: number): void {
  // A request still under way when the list showed (/me can be) has no timing in that run.
  const at = (pick: (n: Navigation) => number) => median(results.map(pick).filter(Number.isFinite)) ?? NaN;
  const rendered = at((n) => n.rendered);
  process.stdout.write(
    `  ${label.padEnd(50)} median ${ms(rendered)} (target <= ${targetMs})   ` +
      `min ${ms(Math.min(...results.map((n) => n.rendered)))}   max ${ms(Math.max(...results.map((n) => n.rendered)))}\n` +
      `  ${''.padEnd(50)} medians from navigation: HTML ${ms(at((n) => n.html))}, scripts ${ms(at((n) => n.scripts))}, ` +
      `/me answered ${ms(at((n) => n.meAnswered))}, list requested ${ms(at((n) => n.listRequested))}, answered ${ms(at((n) => n.listAnswered))} ` +
      `(list call ${ms(at((n) => n.listAnswered - n.listRequested))}), rendered ${ms(rendered)} ` +
      `(render after the answer ${ms(at((n) => n.rendered - n.listAnswered))}); ` +
      `main thread in long tasks ${ms(at((n) => n.longTasks))}\n`,
  );
}

async function main(): Promise<void> {
  const assets = await initialJavaScript();
  const gzipped = assets.reduce((sum, asset) => sum + asset.gzipped, 0);
  process.stdout.write(`\nCertkeeper web interface benchmark\n`);
  process.stdout.write(
    `  ${'initial JavaScript of the sign-in page (gzip -9)'.padEnd(50)} ${kb(gzipped).padStart(9)} (target <= ${SIZE_TARGET_KB} KB)   ` +
      `${assets.length} file(s), ${kb(assets.reduce((sum, asset) => sum + asset.bytes, 0))} uncompressed\n`,
  );
  for (const asset of assets) process.stdout.write(`  ${''.padEnd(50)} ${asset.path}: ${kb(asset.gzipped)} gzipped, ${kb(asset.bytes)}\n`);

  await withSeededApi('web-interface', ROWS, async (api, token) => {
    const session = await sessionOf(api, token);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      // Browser timings on loopback are as good as the CPU time the page gets: say what else ran.
      process.stdout.write(
        `\n  Navigations until a list's first page and total show, ${ROWS} endpoints, headless Chromium on loopback, ` +
          `median of ${RUNS} after a warm-up\n  ${''.padEnd(50)} (${availableParallelism()} CPUs, load average ${loadavg()[0].toFixed(1)} when starting)\n`,
      );
      const lists: { screen: Screen; warm: Navigation[] }[] = [];
      for (const screen of SCREENS) {
        const cold = await navigations(browser, api.baseUrl, session, screen, 'cold');
        printNavigations(`${screen.label}, empty HTTP cache (first visit)`, cold, screen.targetMs);
        const warm = await navigations(browser, api.baseUrl, session, screen, 'warm');
        printNavigations(`${screen.label}, warm HTTP cache (same tab again)`, warm, screen.targetMs);
        lists.push({ screen, warm });
      }

      // Each page's own list call, from Node: what the API alone takes for it.
      for (const { warm } of lists) {
        const listUrl = warm[0].listUrl;
        const list = await measure(listUrl, token, { sequential: 50, concurrency: 4, seconds: 2 });
        process.stdout.write(
          `  ${`GET ${listUrl.replace(/^.*\/api\/v1/, '')} from Node`.padEnd(50)} p50 ${list.p50.toFixed(1).padStart(6)} ms   ` +
            `p95 ${list.p95.toFixed(1).padStart(6)} ms   ${list.perSecond.toFixed(0).padStart(5)} req/s\n`,
        );
      }
    } finally {
      await browser.close();
    }
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
