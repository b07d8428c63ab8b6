import { ConfigError } from '@rxagents/core';

/**
 * What {@link toWebRequest} needs of Node's `http.IncomingMessage` (which is one): described here so that
 * this package imports nothing from Node.
 *
 * @example
 * ```ts
 * import type { IncomingMessage } from 'node:http';
 * import type { NodeIncomingMessage } from '@rxagents/web';
 *
 * const accepts = (req: IncomingMessage): NodeIncomingMessage => req;
 * console.log(typeof accepts); // function
 * ```
 */
export interface NodeIncomingMessage {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  removeAllListeners(event: 'data'): unknown;
  pause(): unknown;
  resume(): unknown;
}

/**
 * What {@link toWebRequest} needs of Node's `http.ServerResponse` (which is one): to know when the
 * response is over.
 *
 * @example
 * ```ts
 * import type { ServerResponse } from 'node:http';
 * import type { NodeResponseEvents } from '@rxagents/web';
 *
 * const accepts = (res: ServerResponse): NodeResponseEvents => res;
 * console.log(typeof accepts); // function
 * ```
 */
export interface NodeResponseEvents {
  once(event: 'close' | 'finish', listener: () => void): unknown;
}

/**
 * A Node `http` request as a Web `Request`, for the handlers of this package (and any built on Web APIs).
 *
 * @remarks
 * The headers are copied (a repeated one keeps every value). The request's `signal` aborts when the
 * connection closes, so a run started for it is cancelled when the client goes away. The body of a
 * request other than `GET` or `HEAD` streams from the connection as the handler reads it, and only then:
 * a handler that stops reading at its limit (as a run registry's `handleAnswer` does) never holds a huge
 * body in memory. What the handler left unread is discarded once the response is over, so a keep-alive
 * connection can carry the next request. The URL is `http://` + the `Host` header (`localhost` without
 * one) + the request's path.
 *
 * @param req - Node's request (`http.IncomingMessage`, or anything like it).
 * @param res - Node's response for it, watched for its end.
 * @returns The `Request`.
 * @throws `ConfigError` when `req` has no headers object.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { toWebRequest, writeToNodeResponse } from '@rxagents/web';
 *
 * const server = createServer((req, res) => {
 *   const request = toWebRequest(req, res);
 *   void writeToNodeResponse(new Response(`${request.method} ${new URL(request.url).pathname}`), res);
 * });
 * server.listen(0, '127.0.0.1', () => server.close());
 * ```
 */
export function toWebRequest(req: NodeIncomingMessage, res: NodeResponseEvents): Request {
  if (typeof req?.headers !== 'object' || req.headers === null) {
    throw new ConfigError('toWebRequest', [{ path: 'req', rule: 'must be a Node http request', received: req }]);
  }
  if (typeof (res as Partial<NodeResponseEvents> | null)?.once !== 'function') {
    throw new ConfigError('toWebRequest', [{ path: 'res', rule: 'must be a Node http response (with once())', received: res }]);
  }
  const aborter = new AbortController();
  res.once('close', () => aborter.abort());
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  const method = req.method ?? 'GET';
  const init: RequestInit & { duplex?: 'half' } = { method, headers, signal: aborter.signal };
  if (method !== 'GET' && method !== 'HEAD') {
    init.body = bodyOf(req);
    init.duplex = 'half';
    res.once('finish', () => discardRest(req));
  }
  return new Request(requestUrl(req), init);
}

/**
 * The request's URL: its `Host` header and path, or `localhost` with the path when the header is missing or
 * does not make a URL (a client may send anything there; a bad one must not throw from the handler).
 */
function requestUrl(req: NodeIncomingMessage): string {
  const path = req.url ?? '/';
  const host = req.headers['host'];
  if (typeof host === 'string' && URL.canParse(`http://${host}${path}`)) return `http://${host}${path}`;
  return URL.canParse(`http://localhost${path}`) ? `http://localhost${path}` : 'http://localhost/';
}

/** The request's body as a Web stream; cancelling it discards the rest without closing the connection, which still carries the response. */
function bodyOf(req: NodeIncomingMessage): ReadableStream<Uint8Array> {
  // The stream may be cancelled (or its rest discarded) before the body ends: then nothing more reaches it.
  let open = true;
  return new ReadableStream<Uint8Array>({
    start: (controller) => {
      req.on('data', (chunk) => {
        controller.enqueue(new Uint8Array(chunk));
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      });
      req.on('end', () => {
        if (!open) return;
        open = false;
        controller.close();
      });
      req.on('error', (error) => {
        if (!open) return;
        open = false;
        controller.error(error);
      });
    },
    pull: () => void req.resume(),
    cancel: () => {
      open = false;
      discardRest(req);
    },
  });
}

/** Stops handing the body over and lets the rest of it flow away. */
function discardRest(req: NodeIncomingMessage): void {
  req.removeAllListeners('data');
  req.resume();
}
