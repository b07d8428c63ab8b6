import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { VirtualTimeScheduler } from 'rxjs';
import { toNodeListener } from './serve';

/** A loopback server that can be stopped (every connection cut, the port refusing) and started again on the same port, as a restart does. */
export interface RestartableServer {
  readonly url: string;
  /** The requests it answered, in order, across restarts. */
  readonly requests: Request[];
  readonly running: boolean;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function restartable(handler: (request: Request) => Response | Promise<Response>): Promise<RestartableServer> {
  const requests: Request[] = [];
  const listener = toNodeListener((request) => {
    requests.push(request);
    return handler(request);
  });
  let server: Server | undefined;
  let port = 0;
  const start = async (): Promise<void> => {
    const next = createServer(listener);
    await new Promise<void>((resolve, reject) => {
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => resolve());
    });
    server = next;
    port = (next.address() as AddressInfo).port;
  };
  await start();
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get running() {
      return server !== undefined;
    },
    start,
    stop: () =>
      new Promise<void>((resolve) => {
        const current = server;
        server = undefined;
        if (current === undefined) return resolve();
        current.closeAllConnections();
        current.close(() => resolve());
      }),
  };
}

/**
 * Settles `done` on `scheduler`'s virtual time: whenever the reader waits for a timer (its real fetches
 * are in flight in between), the scheduler jumps to it. `step` runs before each jump (to restart a
 * server once the virtual clock has passed some time, say).
 */
export async function settleOnVirtualTime<T>(scheduler: VirtualTimeScheduler, done: Promise<T>, step: () => Promise<void> | void = () => undefined): Promise<T> {
  let settled = false;
  const watched = done.finally(() => (settled = true));
  watched.catch(() => undefined);
  while (!settled) {
    await new Promise((resolve) => setTimeout(resolve, 2));
    await step();
    scheduler.flush();
  }
  return watched;
}
