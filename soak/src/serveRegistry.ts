import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as web from '@rxagents/web';
import { toWebRequest, writeWebResponse } from '../../examples/web/nodeBridge';

/** Writes a Web `Response` to a Node `ServerResponse`. */
type NodeWriter = (response: Response, res: ServerResponse) => unknown;

/** The Node `http` writer the scenarios use, and where it comes from. */
export interface NodeBridge {
  readonly name: string;
  readonly write: NodeWriter;
}

/**
 * `@rxagents/web`'s own Node adapter (`writeToNodeResponse`, from the main entry or `@rxagents/web/node`)
 * where the packages have one, else the example bridge `examples/web/nodeBridge.ts`'s `writeWebResponse`.
 */
export async function findNodeBridge(): Promise<NodeBridge> {
  const fromIndex = (web as unknown as Record<string, unknown>).writeToNodeResponse;
  if (typeof fromIndex === 'function') return { name: '@rxagents/web writeToNodeResponse', write: fromIndex as NodeWriter };
  // A subpath the packages may not have: imported by a name the type checker does not resolve.
  const nodeEntry: string = '@rxagents/web/node';
  try {
    const fromNode = ((await import(nodeEntry)) as Record<string, unknown>).writeToNodeResponse;
    if (typeof fromNode === 'function') return { name: '@rxagents/web/node writeToNodeResponse', write: fromNode as NodeWriter };
  } catch {
    // no such entry: the example bridge below
  }
  return { name: 'examples/web/nodeBridge.ts writeWebResponse', write: writeWebResponse };
}

/** A registry served on 127.0.0.1 (`GET /runs/<runId>`) on a free port. */
export interface ServedRegistry {
  readonly port: number;
  readonly bridge: string;
  /** Connections the server holds open now (a stalled viewer's socket stays open until the server cuts it). */
  openConnections(): number;
  close(): Promise<void>;
}

/**
 * Serves `registry.response` on a Node `http` server bound to 127.0.0.1 through {@link findNodeBridge}'s
 * writer; `onViewer(runId)` is told of each request before its response is written.
 */
export async function serveRegistry(registry: web.RunRegistry, onViewer: (runId: string) => void = () => undefined): Promise<ServedRegistry> {
  const bridge = await findNodeBridge();
  const server = createServer((req, res) => {
    void (async () => {
      const runId = /^\/runs\/([^/?]+)/.exec(req.url ?? '')?.[1];
      if (runId === undefined) {
        res.writeHead(404).end();
        return;
      }
      const request = await toWebRequest(req, res);
      const response = registry.response(runId, request);
      onViewer(runId);
      await bridge.write(response, res);
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
    bridge: bridge.name,
    openConnections: () => open,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
