import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toWebRequest, writeToNodeResponse, type RunRegistry } from '@rxagents/web';

/** A registry served on 127.0.0.1 (`GET /runs/<runId>`) on a free port. */
export interface ServedRegistry {
  readonly port: number;
  /** Connections the server holds open now (a stalled viewer's socket stays open until the server cuts it). */
  openConnections(): number;
  close(): Promise<void>;
}

/**
 * Serves `registry.response` on a Node `http` server bound to 127.0.0.1 through the package's Node
 * adapter (`toWebRequest`, `writeToNodeResponse`); `onViewer(runId)` is told of each request before its
 * response is written; a connection that accepts nothing for `stallTimeoutMs` is destroyed.
 */
export async function serveRegistry(
  registry: RunRegistry,
  onViewer: (runId: string) => void = () => undefined,
  stallTimeoutMs = 30_000,
): Promise<ServedRegistry> {
  const server = createServer((req, res) => {
    void (async () => {
      const runId = /^\/runs\/([^/?]+)/.exec(req.url ?? '')?.[1];
      if (runId === undefined) {
        res.writeHead(404).end();
        return;
      }
      const request = toWebRequest(req, res);
      const response = registry.response(runId, request);
      onViewer(runId);
      await writeToNodeResponse(response, res, { stallTimeoutMs });
    })().catch(() => res.destroy());
  });
  let open = 0;
  server.on('connection', (socket) => {
    open++;
    socket.once('close', () => open--);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    openConnections: () => open,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
