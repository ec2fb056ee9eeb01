import type {
  ResultOutcome,
  ResultsResponse,
  ScannerConfig,
  ScanResult,
  SweepReport,
  SweepReportOutcome,
  SweepReportsRequest,
  SweepReportsResponse,
  SweepWorkItem,
  WorkResponse,
} from '@certkeeper/domain/protocol';
import { MAX_WORK_WAIT_SECONDS } from '@certkeeper/domain/protocol';

/** A failed call to the API: transient ones are retried later, fatal ones (a revoked token) stop the agent. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly transient: boolean,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The agent's side of the scanner protocol; every call has a deadline. */
export class ScannerApiClient {
  constructor(
    private readonly apiUrl: string,
    private readonly token: string,
    private readonly timeoutMs = 30_000,
  ) {}

  getConfig(): Promise<ScannerConfig> {
    return this.request<ScannerConfig>('GET', '/api/v1/scanner/config');
  }

  /**
   * The assigned work (with neverScanned only the work due now: endpoints never observed, and
   * those with a scan requested) and the queued sweeps, oldest first; none from an API that
   * predates discovery. `waitSeconds` (with neverScanned) makes it a long-poll the API holds until
   * work is due; the deadline grows by that much. `signal` abandons it (the agent stopping).
   */
  async getWork(options: { neverScanned?: boolean; waitSeconds?: number; signal?: AbortSignal } = {}): Promise<Required<WorkResponse>> {
    const query = new URLSearchParams();
    if (options.neverScanned) query.set('neverScanned', 'true');
    const waitSeconds = options.neverScanned ? Math.min(options.waitSeconds ?? 0, MAX_WORK_WAIT_SECONDS) : 0;
    if (waitSeconds > 0) query.set('wait', String(waitSeconds));
    const path = `/api/v1/scanner/work${query.size > 0 ? `?${query.toString()}` : ''}`;
    const work = await this.request<WorkResponse>('GET', path, undefined, { extraMs: waitSeconds * 1000, signal: options.signal });
    return { items: work.items, sweeps: work.sweeps ?? [] };
  }

  /**
   * Claims a queued sweep: the network's current ranges and ports, or null when it is not ours to
   * run (409: claimed by another agent with this token, or failed meanwhile; 403: another
   * scanner's; 404: gone). Anything else throws like every call.
   */
  async startSweep(sweepId: string): Promise<SweepWorkItem | null> {
    try {
      return await this.request<SweepWorkItem>('POST', `/api/v1/scanner/sweeps/${encodeURIComponent(sweepId)}/start`);
    } catch (error) {
      if (error instanceof ApiError && (error.status === 409 || error.status === 403 || error.status === 404)) return null;
      throw error;
    }
  }

  /** One outcome per report, in order. The caller keeps the body under RESULTS_BATCH_BYTES. */
  async postSweepReports(reports: SweepReport[]): Promise<SweepReportOutcome[]> {
    const body: SweepReportsRequest = { reports };
    return (await this.request<SweepReportsResponse>('POST', '/api/v1/scanner/sweep-reports', body)).reports;
  }

  async postResults(results: ScanResult[]): Promise<ResultOutcome[]> {
    return (await this.request<ResultsResponse>('POST', '/api/v1/scanner/results', { results })).results;
  }

  private async request<T>(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    options: { extraMs?: number; signal?: AbortSignal } = {},
  ): Promise<T> {
    // A long-poll's deadline is the wait it asked for plus the usual one, so an answer at the end of the wait still arrives.
    const deadlineMs = this.timeoutMs + (options.extraMs ?? 0);
    // One controller for the deadline and the caller's signal, its listener removed after each call
    // (a daemon makes this call for months on one signal).
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new DOMException('deadline', 'TimeoutError')), deadlineMs);
    const cancel = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', cancel, { once: true });
    if (options.signal?.aborted) cancel();
    let response: Response;
    try {
      response = await fetch(`${this.apiUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: controller.signal,
      });
    } catch (error) {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', cancel);
      throw new ApiError(`API unreachable: ${describeFetchFailure(error, deadlineMs)}`, null, true);
    }
    const text = await response
      .text()
      .catch(() => '')
      .finally(() => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', cancel);
      });
    if (!response.ok) {
      // 401/403 will not get better by retrying: the token was revoked or replaced.
      const transient = response.status >= 500 || response.status === 429 || response.status === 408;
      throw new ApiError(`API answered ${response.status}: ${text.trim().slice(0, 300)}`, response.status, transient);
    }
    return JSON.parse(text) as T;
  }
}

// Duck-typed: fetch's errors may come from another realm, where instanceof Error is false.
type FetchFailure = { name?: string; message?: string; cause?: { code?: string; message?: string } } | null | undefined;

export function describeFetchFailure(error: unknown, deadlineMs: number): string {
  const failure = error as FetchFailure;
  if (failure?.name === 'TimeoutError') return `no answer within ${deadlineMs} ms`;
  return failure?.cause?.code ?? failure?.cause?.message ?? failure?.message ?? String(error);
}
