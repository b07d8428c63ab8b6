import { connect, type Socket } from 'node:net';

/** A viewer on a raw socket, so that how it reads (never, or slowly) is exactly what the scenario says. */
export interface RawViewer {
  /** Bytes read so far (headers included). */
  readonly bytes: () => number;
  /** Whether the server closed (or reset) the connection. */
  readonly closedByServer: () => boolean;
  /** Whether an `event: error` frame arrived (a slow viewer only: a stalled one reads nothing). */
  readonly gotErrorFrame: () => boolean;
  close(): void;
}

/**
 * Opens `GET path` on 127.0.0.1:`port`. `pauseMs: undefined`: the socket never reads (paused from the
 * start, so what the server writes waits in the kernel and then in the server). A number: it reads one
 * chunk (up to 64 KB), pauses that long, and reads the next.
 */
export function openViewer(port: number, path: string, pauseMs?: number): RawViewer {
  let bytes = 0;
  let closedByServer = false;
  let closing = false;
  let gotErrorFrame = false;
  let tail = '';
  const socket: Socket = connect({ host: '127.0.0.1', port });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    if (!closing) closedByServer = true;
  });
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`);
  if (pauseMs === undefined) socket.pause();
  else {
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      const text = tail + chunk.toString('latin1');
      if (text.includes('event: error')) gotErrorFrame = true;
      tail = text.slice(-16);
      socket.pause();
      setTimeout(() => socket.resume(), pauseMs);
    });
  }
  return {
    bytes: () => bytes,
    closedByServer: () => closedByServer,
    gotErrorFrame: () => gotErrorFrame,
    close: () => {
      closing = true;
      socket.destroy();
    },
  };
}
