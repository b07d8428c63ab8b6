import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { ConfigError } from '@rxagents/core';
import { toWebRequest, writeToNodeResponse } from '@rxagents/web';

/** A loopback server answering each request with `handle(toWebRequest(req, res))`. */
async function serveWeb(handle: (request: Request) => Response | Promise<Response>): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    void Promise.resolve(handle(toWebRequest(req, res))).then((response) => writeToNodeResponse(response, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('toWebRequest', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('gives the method, URL, headers (every value of a repeated one) and the streamed body', async () => {
    const { url, server } = await serveWeb(async (request) =>
      Response.json({ method: request.method, url: request.url, accept: request.headers.get('x-many'), body: await request.text() }),
    );
    servers.push(server);
    const headers = new Headers({ 'x-many': 'a' });
    headers.append('x-many', 'b');
    const answer = (await (await fetch(`${url}/api/runs?x=1`, { method: 'POST', headers, body: 'hello' })).json()) as Record<string, string>;
    expect(answer).toEqual({ method: 'POST', url: `${url}/api/runs?x=1`, accept: 'a, b', body: 'hello' });
  });

  it("aborts the request's signal when the client goes away", async () => {
    let aborted!: () => void;
    const gone = new Promise<void>((resolve) => (aborted = resolve));
    const { url, server } = await serveWeb((request) => {
      request.signal.addEventListener('abort', () => aborted(), { once: true });
      return new Response(new ReadableStream({ start: (controller) => controller.enqueue(new TextEncoder().encode('x')) }));
    });
    servers.push(server);
    const client = new AbortController();
    const response = await fetch(url, { signal: client.signal });
    await response.body?.getReader().read();
    client.abort();
    await gone;
  });

  it('a body the handler stops reading does not hold up the next request on the same connection', async () => {
    const { url, server } = await serveWeb(async (request) => {
      const reader = (request.body as ReadableStream<Uint8Array>).getReader();
      await reader.read();
      await reader.cancel();
      return new Response('read a little');
    });
    servers.push(server);
    const big = 'x'.repeat(4 * 1024 * 1024);
    for (let i = 0; i < 2; i++) expect(await (await fetch(url, { method: 'POST', body: big })).text()).toBe('read a little');
  });

  it('a Host header that makes no URL gives a request on localhost, never a throw from the handler', async () => {
    const { url, server } = await serveWeb((request) => new Response(request.url));
    servers.push(server);
    const { port } = new URL(url);
    const reply = await new Promise<string>((resolve, reject) => {
      let text = '';
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('GET /runs/1?x=2 HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n'));
      socket.on('data', (chunk) => (text += String(chunk)));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(reply).toMatch(/^HTTP\/1\.1 200/);
    expect(reply).toContain('\r\nhttp://localhost/runs/1?x=2\r\n');
  });

  it('refuses what is not a Node request', () => {
    expect(() => toWebRequest({} as never, { once: () => undefined })).toThrow(ConfigError);
  });

  it.each([null, undefined, 42, {}])('refuses %p as the response with a ConfigError naming res', (bad) => {
    const req = { method: 'GET', url: '/', headers: { host: 'localhost' }, on: () => undefined, once: () => undefined, off: () => undefined };
    expect(() => toWebRequest(req as never, bad as never)).toThrow(ConfigError);
    expect(() => toWebRequest(req as never, bad as never)).toThrow(/^toWebRequest: res must be a Node http response/);
  });
});
