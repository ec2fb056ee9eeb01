import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { WEB_ROOT } from '../../../api/src/web-interface';
import { runAgentCycle } from '../../../api/test/support/agent-process';
import { createTestApp, type TestApp } from '../../../api/test/support/test-app';

/*
 * What the browser specs of the web interface share: headless Chromium (Debian's `chromium`,
 * driven by playwright-core; no browser download), axe-core, screenshots under test-output/web/,
 * signing in through the form and the real agent for one scan cycle.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(__dirname, '../../../../test-output/web');
/** The two sizes every screen is looked at: a laptop and a phone. */
export const SIZES = [
  { name: 'desktop', viewport: { width: 1280, height: 800 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
] as const;
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

// CI installs chromium (.ci/run): there a missing browser fails these tests; elsewhere they skip, saying so.
const available = existsSync(CHROMIUM);
export const describeWithChromium =
  available || process.env.CI === 'true'
    ? describe
    : (name: string, body: () => void) =>
        describe.skip(`${name} [skipped: no Chromium at ${CHROMIUM}; apt-get install chromium or set CHROMIUM_PATH]`, body);

/** Chromium, after checking that it and the web bundle exist; the screenshot folder is made. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: install Debian's package (apt-get install -y chromium) or set CHROMIUM_PATH.`);
  }
  if (!existsSync(join(WEB_ROOT, 'index.html')))
    throw new Error(`${WEB_ROOT} has no bundle: \`npm test\` builds it first (npm run build).`);
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/** The real agent, built, as its own process: one scan cycle against this API; a failed cycle fails the test. */
export async function runAgentOnce(apiUrl: string, token: string): Promise<string> {
  const { code, output } = await runAgentCycle(apiUrl, token, { SCANNER_CONNECT_TIMEOUT_MS: '2000' });
  if (code !== 0) throw new Error(`agent exited ${code}: ${output}`);
  return output;
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown }[];
}

/** axe-core on the page as it is now: serious and critical violations, described. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP (scripts from 'self' only) does not govern.
  await page.evaluate(`${AXE_SOURCE}\n;undefined`);
  const violations = await page.evaluate<AxeViolation[]>('axe.run(document).then((results) => results.violations)');
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) => `${violation.id} (${violation.impact}): ${violation.help} at ${JSON.stringify(violation.nodes.map((n) => n.target))}`,
    );
}

/** A full-page screenshot under test-output/web/, named after the running test. */
export async function screenshot(page: Page): Promise<void> {
  const name =
    expect
      .getState()
      .currentTestName?.replace(/[^a-z0-9]+/gi, '-')
      .toLowerCase() ?? 'test';
  if (page.url() !== 'about:blank') await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Fills in the sign-in form on the page and submits it. */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** Collects what a page reports that a test must not see: CSP violations and uncaught errors. */
export function watchPage(page: Page): { cspViolations: string[]; pageErrors: string[] } {
  const watched = { cspViolations: [] as string[], pageErrors: [] as string[] };
  page.setDefaultTimeout(15_000);
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) watched.cspViolations.push(message.text());
    // WEB_UI_DEBUG=1 npx jest apps/api/test/web-ui.spec.ts shows the page's console.
    if (process.env.WEB_UI_DEBUG) process.stderr.write(`console: ${message.text()}\n`);
  });
  page.on('pageerror', (error) => watched.pageErrors.push(error.message));
  return watched;
}

/**
 * Registers the hooks of a browser spec: one test app and one Chromium per file, a fresh context
 * (clipboard granted) and page per test, a screenshot of each test's last screen, and neither a
 * CSP violation nor a page error allowed. Read `app` and `page` once the hooks have run.
 */
export function browserSession(): { readonly app: TestApp; readonly page: Page } {
  const session = {} as { app: TestApp; page: Page };
  let browser: Browser | undefined;
  let context: BrowserContext;
  let watched: { cspViolations: string[]; pageErrors: string[] };

  beforeAll(async () => {
    session.app = await createTestApp();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await session.app?.close();
  });
  beforeEach(async () => {
    context = await browser!.newContext({ baseURL: session.app.baseUrl, permissions: ['clipboard-read', 'clipboard-write'] });
    session.page = await context.newPage();
    watched = watchPage(session.page);
  });
  afterEach(async () => {
    await screenshot(session.page);
    await context.close();
    expect(watched.cspViolations).toEqual([]);
    expect(watched.pageErrors).toEqual([]);
  });
  return session;
}
