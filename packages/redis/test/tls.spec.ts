import { randomUUID } from 'node:crypto';
import { defineAgent, invoke } from '@rxagents/core';
import { Redis } from 'ioredis';
import { Observable } from 'rxjs';
import { redisChannel, remoteAgent, serveAgent } from '../src';
import { closeClient } from '../src/internal/closeClient';
import { describeRedis } from './support/describeRedis';
import { waitUntil } from './support/waitUntil';

jest.setTimeout(30_000);

// The server listens on TLS only (no plain port): every connection the package opens, including the
// duplicates that do its blocking reads, must come from the client's own options to get through.
describeRedis(
  'a Redis server on TLS only',
  (server) => {
    it('serves remote calls and carries a channel over TLS, every connection a duplicate of the TLS client', async () => {
      const prefix = `tls-${randomUUID()}`;
      const writer = defineAgent('writer', () => new Observable<string>((subscriber) => {
        subscriber.next('over ');
        subscriber.next('TLS');
        subscriber.complete();
      }));
      const reported: unknown[] = [];
      const worker = serveAgent(server().client(), writer, { prefix, onError: (error) => void reported.push(error) });
      expect(await invoke(remoteAgent(server().client(), 'writer', { prefix }), 'hi')).toBe('over TLS');
      await worker.close();

      const producer = redisChannel<number>(server().client(), randomUUID(), { prefix, pollMs: 5 });
      const consumer = redisChannel<number>(server().client(), producer.id, { prefix, pollMs: 5 });
      const received: number[] = [];
      const done = new Promise<void>((resolve) => consumer.subscribe({ next: (item) => void received.push(item), complete: resolve }));
      await waitUntil('the consumer is registered', async () => (await consumer.sharedMetrics()).subscriberCount === 1);
      for (const item of [1, 2, 3]) expect(await producer.offer(item)).toBe(true);
      await producer.complete();
      await done;
      expect(received).toEqual([1, 2, 3]);
      expect(reported).toEqual([]);
    });

    it('refuses a client that does not speak TLS', async () => {
      const plain = new Redis({ host: '127.0.0.1', port: server().port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2_000 });
      plain.on('error', () => undefined);
      await expect(plain.connect().then(() => plain.ping())).rejects.toThrow();
      closeClient(plain);
    });
  },
  false,
  { tls: true },
);
