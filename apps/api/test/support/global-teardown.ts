import { rm } from 'node:fs/promises';

export default async function globalTeardown(): Promise<void> {
  const handle = (globalThis as Record<string, unknown>).__certkeeperTestDatabase as
    { stop(): Promise<void>; directory: string } | undefined;
  if (!handle) return;
  await handle.stop();
  await rm(handle.directory, { recursive: true, force: true });
}
