import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { VirtualTimeScheduler } from 'rxjs';
import { ConfigError, invoke$, observeRun } from '@rxagents/core';
import { toEventStreamResponse, writeToNodeResponse, type WriteToNodeResponseOptions } from '@rxagents/web';
import { countedText, countingAgent, untilSettled } from './helpers/agents';

/** A loopback server writing each request's Response with `writeToNodeResponse`; `done` counts the writes that resolved. */
async function serveNode(
  handler: (signal: AbortSignal) => Response,
  options?: WriteToNodeResponseOptions,
): Promise<{ port: number; done: () => number; server: Server }> {
  let done = 0;
  const server = createServer((req, res) => {
    const closed = new AbortController();
    res.once('close', () => closed.abort());
    void writeToNodeResponse(handler(closed.signal), res, options).then(() => done++);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, done: () => done, server };
}

/** A raw client socket that sends a GET and reads nothing until `read()`, which reads everything. */
function stalledClient(port: number): { socket: Socket; read: () => void; received: () => string; ended: Promise<void> } {
  const socket = connect(port, '127.0.0.1');
  socket.pause();
  socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
  let text = '';
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const read = (): void => void socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8'))).resume();
  return { socket, read, received: () => text, ended };
}

/** The text of every text delta in a raw HTTP/1.1 answer (each chunk holds whole frames, so no delta is split). */
const deltasOf = (raw: string): string => Array.from(raw.matchAll(/"delta":"([^"]*)"/g), (match) => match[1]).join('');

describe('writeToNodeResponse', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('stops pulling from the body while the client does not read (a paced run waits), and loses nothing when it reads again', async () => {
    const total = 100_000;
    const { agent, pulled } = countingAgent('writer', total);
    const { port, done, server } = await serveNode((signal) =>
      toEventStreamResponse((pace) => observeRun('story', 'go', (run) => invoke$(agent, 'go', { run }), { pace }), { signal, bufferSize: 16 }),
    );
    servers.push(server);
    const client = stalledClient(port);
    // Socket buffers hold some frames; the run stops pulling chunks from the agent long before the end.
    expect(await untilSettled(pulled)).toBeLessThan(total / 2);
    client.read();
    await client.ended;
    expect(pulled()).toBe(total);
    expect(deltasOf(client.received()) === countedText(total)).toBe(true);
    await untilSettled(done);
    expect(done()).toBe(1);
  }, 60_000);

  it('a client that goes away cancels the body: every agent is aborted, and the write resolves', async () => {
    const { agent, aborted } = countingAgent('writer', Infinity);
    const { port, done, server } = await serveNode((signal) =>
      toEventStreamResponse((pace) => observeRun('story', 'go', (run) => invoke$(agent, 'go', { run }), { pace }), { signal }),
    );
    servers.push(server);
    const client = stalledClient(port);
    client.read();
    while (!client.received().includes('text-delta')) await new Promise((resolve) => setTimeout(resolve, 5));
    client.socket.destroy();
    await aborted;
    await untilSettled(done);
    expect(done()).toBe(1);
  });

  it('a connection that accepts nothing for stallTimeoutMs is destroyed and the body cancelled', async () => {
    const scheduler = new VirtualTimeScheduler();
    const { agent, pulled, aborted } = countingAgent('writer', Infinity);
    const { port, server } = await serveNode(
      (signal) => toEventStreamResponse((pace) => observeRun('story', 'go', (run) => invoke$(agent, 'go', { run }), { pace }), { signal, stallTimeoutMs: Infinity }),
      { stallTimeoutMs: 5_000, scheduler },
    );
    servers.push(server);
    const client = stalledClient(port);
    await untilSettled(pulled);
    scheduler.flush();
    await aborted;
    // The server closed its end: a client reading again finds the end of the connection.
    client.read();
    await client.ended;
  }, 60_000);

  it('writes the status and headers (every set-cookie), a body-less response, and refuses bad arguments', async () => {
    const headers = new Headers({ 'content-type': 'text/plain', 'x-a': '1' });
    headers.append('set-cookie', 'a=1');
    headers.append('set-cookie', 'b=2');
    const { port, server } = await serveNode(() => new Response(null, { status: 204, headers }));
    servers.push(server);
    const response = await fetch(`http://127.0.0.1:${port}/`);
    expect(response.status).toBe(204);
    expect(response.headers.get('x-a')).toBe('1');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    const res = { destroyed: false } as never;
    expect(() => writeToNodeResponse(new Response('x'), res, { stallTimeoutMs: 0 })).toThrow(/stallTimeoutMs/);
    expect(() => writeToNodeResponse('x' as never, res)).toThrow(ConfigError);
  });
});
