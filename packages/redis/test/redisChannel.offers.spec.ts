import { randomUUID } from 'node:crypto';
import { redisChannel, type RedisChannelOptions } from '../src';
import { describeRedis } from './support/describeRedis';
import { waitUntil } from './support/waitUntil';

jest.setTimeout(60_000);

/** Enough offers queued at once that the producer reclaims the slots of stored ones while it works through them. */
const COUNT = 3_000;

describeRedis('redisChannel: a long queue of offers in one process', (server) => {
  let prefix: string;
  let id: string;
  const side = <T>(options: RedisChannelOptions<T> = {}) => redisChannel<T>(server().client(), id, { prefix, bufferSize: COUNT, ...options });
  beforeEach(() => {
    prefix = `cho-${randomUUID()}`;
    id = randomUUID();
  });

  it('stores every offer once and in order, then complete() ends the channel after them', async () => {
    const producer = side<number>();
    const accepted = Promise.all(Array.from({ length: COUNT }, (_, n) => producer.offer(n)));
    await producer.complete();
    expect(await accepted).toEqual(Array.from({ length: COUNT }, () => true));
    const stored = await server().client().xrange(`${prefix}:channel:{${id}}:items`, '-', '+');
    const items = stored.map(([, fields]) => JSON.parse(fields[fields.indexOf('entry') + 1] as string) as { kind: string; item?: number });
    expect(items.at(-1)).toMatchObject({ kind: 'complete' });
    expect(items.slice(0, -1).map((entry) => entry.item)).toEqual(Array.from({ length: COUNT }, (_, n) => n));
    expect(producer.metrics()).toMatchObject({ emitted: COUNT, dropped: 0, pendingOffers: 0 });
  });

  it('close() midway refuses exactly the offers still queued: the first ones are stored, the rest resolve false', async () => {
    const producer = side<number>();
    const results = Array.from({ length: COUNT }, (_, n) => producer.offer(n));
    await waitUntil('over half the offers are stored', () => producer.metrics().emitted > COUNT / 2);
    await producer.close();
    const accepted = await Promise.all(results);
    const stored = accepted.indexOf(false);
    expect(stored).toBeGreaterThan(COUNT / 2);
    expect(accepted.slice(stored)).not.toContain(true);
    expect(producer.metrics()).toMatchObject({ emitted: stored, dropped: COUNT - stored, pendingOffers: 0, closed: true });
  });
});
