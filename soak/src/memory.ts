/** What the process holds, in bytes: V8's heap in use, array buffers (Node's `Buffer`s: socket writes, encoded text) and RSS. */
export interface MemoryFigures {
  readonly heap: number;
  readonly arrayBuffers: number;
  readonly rss: number;
}

const gc = (globalThis as { gc?: () => void }).gc;

/** Whether the process runs with `--expose-gc` (`pnpm soak` passes it); without it the memory figures include garbage. */
export const canCollect = gc !== undefined;

/** Full garbage collections (twice: the first can leave what finalizers freed), then the memory figures. */
export function collectedMemory(): MemoryFigures {
  gc?.();
  gc?.();
  return memoryNow();
}

/** The memory figures now, garbage included. */
export function memoryNow(): MemoryFigures {
  const { heapUsed, arrayBuffers, rss } = process.memoryUsage();
  return { heap: heapUsed, arrayBuffers, rss };
}

/** Bytes as MB with one decimal (1 MB = 2^20 bytes). */
export function mb(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(1);
}

/** `after - before`, field by field. */
export function growth(before: MemoryFigures, after: MemoryFigures): MemoryFigures {
  return { heap: after.heap - before.heap, arrayBuffers: after.arrayBuffers - before.arrayBuffers, rss: after.rss - before.rss };
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
