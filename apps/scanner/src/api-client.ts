export type Reachability = { reachable: true } | { reachable: false; reason: string };

/**
 * Asks the API's health route, bounded by a deadline: the agent never waits on a silent server.
 */
export async function checkApiReachable(apiUrl: string, deadlineMs: number): Promise<Reachability> {
  try {
    const response = await fetch(`${apiUrl}/api/v1/health`, { signal: AbortSignal.timeout(deadlineMs) });
    await response.arrayBuffer();
    return response.ok ? { reachable: true } : { reachable: false, reason: `health answered ${response.status}` };
  } catch (error) {
    return { reachable: false, reason: describeFailure(error, deadlineMs) };
  }
}

// Duck-typed: fetch's errors may come from another realm, where instanceof Error is false.
type FetchFailure = { name?: string; message?: string; cause?: { code?: string; message?: string } } | null | undefined;

function describeFailure(error: unknown, deadlineMs: number): string {
  const failure = error as FetchFailure;
  if (failure?.name === 'TimeoutError') return `no answer within ${deadlineMs} ms`;
  return failure?.cause?.code ?? failure?.cause?.message ?? failure?.message ?? String(error);
}
