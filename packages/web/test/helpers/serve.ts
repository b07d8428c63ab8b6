import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Serves a Web `Request => Response` handler from Node's `http` (what the guide shows in a few lines). */
export function toNodeListener(handler: (request: Request) => Response | Promise<Response>): RequestListener {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const aborter = new AbortController();
    res.on('close', () => aborter.abort());
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    const chunks: Buffer[] = [];
    if (req.method !== 'GET' && req.method !== 'HEAD') for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length === 0 ? {} : { body: Buffer.concat(chunks) };
    const response = await handler(new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, { method: req.method, headers, signal: aborter.signal, ...body }));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body === null) res.end();
    else await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), res).catch(() => undefined);
  };
}

/** A loopback server on a free port; `close` stops it and every open connection. */
export async function serve(handler: (request: Request) => Response | Promise<Response>): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(toNodeListener(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
