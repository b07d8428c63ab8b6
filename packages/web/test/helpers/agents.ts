import { defineAgent, type Agent } from '@rxagents/core';

/** An agent streaming `count` chunks (`x0 `, `x1 `, ...) from an async generator, counting pulls and noting its abort. */
export function countingAgent(id: string, count: number): { agent: Agent; pulled: () => number; aborted: Promise<void> } {
  let pulled = 0;
  let onAbort!: () => void;
  const aborted = new Promise<void>((resolve) => (onAbort = resolve));
  const agent = defineAgent(id, (_input, { signal }) => {
    signal?.addEventListener('abort', () => onAbort(), { once: true });
    return (async function* () {
      for (let i = 0; i < count; i++) {
        pulled++;
        yield `x${i} `;
      }
    })();
  });
  return { agent, pulled: () => pulled, aborted };
}

/** The whole text of `countingAgent(_, count)`. */
export const countedText = (count: number): string => Array.from({ length: count }, (_, i) => `x${i} `).join('');

/** Resolves once `read()` stops changing across a few turns of the event loop with I/O in between. */
export async function untilSettled(read: () => number): Promise<number> {
  let last = -1;
  let same = 0;
  while (same < 5) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const now = read();
    same = now === last ? same + 1 : 0;
    last = now;
  }
  return last;
}
