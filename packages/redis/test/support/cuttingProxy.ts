import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a redis-server that can lose one reply: armed with a command name, it lets the
 * next such command through, waits until Redis has applied it, then closes the client's connection
 * without passing the reply on. The client (ioredis) reconnects through the proxy and sends the command
 * again, as it would after a network cut or a Redis restart at the worst moment.
 */
export interface CuttingProxy {
  readonly port: number;
  /** Arms the proxy for the next `command` (case-insensitive); resolves once that connection was cut. */
  cutAfter(command: string, applied: () => Promise<boolean>): Promise<void>;
  close(): Promise<void>;
}

export async function startCuttingProxy(redisPort: number): Promise<CuttingProxy> {
  const sockets = new Set<Socket>();
  let armed: { pattern: RegExp; applied: () => Promise<boolean>; done: () => void; failed: (error: unknown) => void } | undefined;
  const server = createServer((client) => {
    const upstream = connect(redisPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    let losing = false;
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.on('data', (chunk: Buffer) => {
      const cut = armed;
      if (cut !== undefined && !losing && cut.pattern.test(chunk.toString('latin1'))) {
        armed = undefined;
        losing = true;
        void (async () => {
          const deadline = Date.now() + 10_000;
          while (!(await cut.applied())) {
            if (Date.now() > deadline) return cut.failed(new Error('the armed command was never applied'));
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
          end();
          cut.done();
        })();
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!losing) client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    cutAfter: (command, applied) =>
      new Promise<void>((done, failed) => {
        armed = { pattern: new RegExp(`\\$${command.length}\\r\\n${command}\\r\\n`, 'i'), applied, done, failed };
      }),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
