import type { IncomingMessage, ServerResponse } from 'node:http';

/** A Node `http` request as a Web `Request`; its signal aborts when the connection closes. */
export async function toWebRequest(req: IncomingMessage, res: ServerResponse): Promise<Request> {
  const aborter = new AbortController();
  res.on('close', () => aborter.abort());
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const chunks: Buffer[] = [];
  if (hasBody) for await (const chunk of req) chunks.push(chunk as Buffer);
  return new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`, {
    method: req.method ?? 'GET',
    headers,
    signal: aborter.signal,
    ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
  });
}

/**
 * Writes a Web `Response` to Node's `res`, chunk by chunk as its body produces them (an event stream
 * reaches the browser at once). When the browser goes away the body is cancelled, which cancels what
 * feeds it. Resolves when the response is over, either way.
 */
export async function writeWebResponse(response: Response, res: ServerResponse): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const gone = (): void => void reader.cancel().catch(() => undefined);
  res.on('close', gone);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    res.off('close', gone);
  }
}
