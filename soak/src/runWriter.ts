import { type Agent, defineAgent, stream } from '@rxagents/core';
import { createRunRegistry } from '@rxagents/web';

/**
 * An agent that waits for `go`, then streams `deltas` text deltas of `deltaBytes` characters each,
 * yielding to the event loop every 64 (so sockets are written while it runs), and calls `done` at its end.
 */
export function runWriter(deltas: number, deltaBytes: number, go: Promise<void> = Promise.resolve(), done: () => void = () => undefined): Agent {
  const filler = 'x'.repeat(Math.max(0, deltaBytes - 8));
  return defineAgent('writer', () =>
    (async function* () {
      await go;
      try {
        for (let i = 0; i < deltas; i++) {
          yield `${String(i).padStart(7, '0')} ${filler}`;
          if (i % 64 === 63) await new Promise((resolve) => setImmediate(resolve));
        }
      } finally {
        done();
      }
    })(),
  );
}

/** The bytes of one `text-delta` frame of a delta of `deltaBytes` characters, as the registry writes it. */
export async function deltaFrameBytes(deltaBytes: number): Promise<number> {
  const registry = createRunRegistry();
  const { runId } = registry.start('frame', 'go', (run) => stream(runWriter(1, deltaBytes), 'go', { run }));
  const text = await registry.response(runId, new Request(`http://127.0.0.1/runs/${runId}`)).text();
  registry.close();
  const frame = text.split('\n\n').find((candidate) => candidate.includes('text-delta'));
  if (frame === undefined) throw new Error('no text-delta frame in a one-delta run');
  return Buffer.byteLength(frame) + 2;
}
