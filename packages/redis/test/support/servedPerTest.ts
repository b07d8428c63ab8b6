import { randomUUID } from 'node:crypto';
import { serveAgent, type ServedAgent } from '../../src';

/** What {@link servedPerTest} gives a describe block. */
export interface ServedPerTest {
  /** The current test's key prefix: new for each test, so no test sees another's keys. */
  readonly prefix: string;
  /** Serves an agent under the test's prefix with short lease timings; the worker is closed after the test. */
  serve(...args: Parameters<typeof serveAgent>): ServedAgent;
  /** Closes the workers served so far (done after each test; call it earlier to close them before their client). */
  closeWorkers(): Promise<void>;
}

/**
 * Registers, in the calling describe block, a fresh key prefix (`tag-<uuid>`) before each test and the
 * closing of every worker the test served after it.
 */
export function servedPerTest(tag: string): ServedPerTest {
  let prefix = '';
  const workers: ServedAgent[] = [];
  beforeEach(() => {
    prefix = `${tag}-${randomUUID()}`;
  });
  const closeWorkers = async (): Promise<void> => {
    await Promise.all(workers.splice(0).map((worker) => worker.close()));
  };
  afterEach(closeWorkers);
  return {
    closeWorkers,
    get prefix() {
      return prefix;
    },
    serve: (redis, agent, options) => {
      const worker = serveAgent(redis, agent, { prefix, claimIdleMs: 1_000, leaseCheckMs: 100, ...options });
      workers.push(worker);
      return worker;
    },
  };
}
