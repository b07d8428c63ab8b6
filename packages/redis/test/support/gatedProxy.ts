import { type AddressInfo, connect, createServer, type Socket } from 'node:net';

/** A TCP proxy in front of a redis-server that can be shut (its connections cut, new ones refused) and opened again. */
export interface GatedProxy {
  readonly port: number;
  /** Cuts every connection and refuses new ones, as a Redis that went away. */
  shut(): void;
  /** Lets connections through again. */
  open(): void;
  close(): Promise<void>;
}

export async function startGatedProxy(redisPort: number): Promise<GatedProxy> {
  let up = true;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    if (!up) return void client.destroy();
    const upstream = connect(redisPort, '127.0.0.1');
    sockets.add(upstream);
    client.pipe(upstream).pipe(client);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const cut = (): void => {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  };
  return {
    port: (server.address() as AddressInfo).port,
    shut: () => {
      up = false;
      cut();
    },
    open: () => {
      up = true;
    },
    close: async () => {
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
