import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A Node `http` request as a Web `Request`; its signal aborts when the connection closes.
 *
 * The body streams from the connection as the handler reads it, so each handler reads only as much as it
 * accepts (`humanAgent`'s `handleAnswer` stops at its limit, {@link readJson} at its own): a huge body is
 * never held in memory.
 */
export async function toWebRequest(req: IncomingMessage, res: ServerResponse): Promise<Request> {
  const aborter = new AbortController();
  res.on('close', () => aborter.abort());
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const init: RequestInit & { duplex?: 'half' } = { method: req.method ?? 'GET', headers, signal: aborter.signal };
  if (hasBody) {
    init.body = bodyOf(req);
    init.duplex = 'half';
    // What the handler left unread is discarded once the response is out, as Node does with a body nobody
    // reads, so a keep-alive connection can carry the next request.
    res.on('finish', () => discardRest(req));
  }
  return new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`, init);
}

/** The request's body as a Web stream; cancelling it discards the rest without closing the connection, which still carries the response. */
function bodyOf(req: IncomingMessage): ReadableStream<Uint8Array> {
  // The stream may be cancelled (or its rest discarded) before the body ends: then nothing more reaches it.
  let open = true;
  return new ReadableStream<Uint8Array>({
    start: (controller) => {
      req.on('data', (chunk: Buffer) => {
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
function discardRest(req: IncomingMessage): void {
  req.removeAllListeners('data');
  req.resume();
}

/** The JSON body of a request (`{ json }`), `'too large'` past `maxBytes` (reading stops there), or `undefined` when it is not JSON. */
export async function readJson(request: Request, maxBytes: number): Promise<{ readonly json: unknown } | 'too large' | undefined> {
  if (request.body === null) return undefined;
  const reader = request.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    size += next.value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return 'too large';
    }
    text += decoder.decode(next.value, { stream: true });
  }
  try {
    return { json: JSON.parse(text + decoder.decode()) as unknown };
  } catch {
    return undefined;
  }
}
