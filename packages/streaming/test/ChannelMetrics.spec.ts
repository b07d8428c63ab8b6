import fc from 'fast-check';
import { Subject } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { BackpressureStrategy, StreamingChannel, type ChannelMetrics } from '@rxagents/streaming';

const testScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const balanced = (m: ChannelMetrics) => m.emitted === m.delivered + m.dropped + m.bufferUsed + m.pendingOffers;
const strategies = fc.constantFrom(...Object.values(BackpressureStrategy));

type Op =
  | { kind: 'emit' }
  | { kind: 'offer$' }
  | { kind: 'subscribe'; async: boolean; own: BackpressureStrategy | undefined }
  | { kind: 'release' }
  | { kind: 'unsubscribe' }
  | { kind: 'advance'; ms: number }
  | { kind: 'complete' }
  | { kind: 'close' };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: 'emit' } as const) },
  { weight: 2, arbitrary: fc.constant({ kind: 'offer$' } as const) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('subscribe' as const), async: fc.boolean(), own: fc.option(strategies, { nil: undefined }) }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'release' } as const) },
  { weight: 1, arbitrary: fc.constant({ kind: 'unsubscribe' } as const) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 20 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'complete' } as const) },
  { weight: 1, arbitrary: fc.constant({ kind: 'close' } as const) },
);

describe('ChannelMetrics', () => {
  it('dropRate is the dropped share in percent, 0 when nothing was emitted', () => {
    const channel = StreamingChannel.create<number>({ id: 'rate', bufferSize: 2 });
    expect(channel.metrics().dropRate()).toBe(0);
    channel.emitAll([1, 2, 3, 4]);
    const metrics = channel.metrics();
    expect(metrics).toMatchObject({ channelId: 'rate', emitted: 4, dropped: 2, bufferUsed: 2, bufferCapacity: 2, subscriberCount: 0, completed: false, closed: false });
    expect(metrics.dropRate()).toBe(50);
    expect(Object.isFrozen(metrics)).toBe(true);
  });

  it('property: emitted = delivered + dropped + bufferUsed + pendingOffers whenever the channel is idle', () => {
    fc.assert(
      fc.property(strategies, fc.integer({ min: 1, max: 4 }), fc.array(op, { maxLength: 60 }), (strategy, bufferSize, ops) => {
        const scheduler = new TestScheduler(() => undefined);
        const channel = StreamingChannel.create<number>({ bufferSize, backpressure: strategy, offerTimeout: 10, maxPendingOffers: 2, scheduler });
        channel.onError(() => undefined);
        const pending: Subject<void>[] = [];
        const subscriptions: { unsubscribe(): void }[] = [];
        let next = 0;
        for (const step of ops) {
          try {
            switch (step.kind) {
              case 'emit':
                channel.emit(next++);
                break;
              case 'offer$':
                channel.offer$(next++).subscribe({ error: () => undefined });
                break;
              case 'subscribe':
                subscriptions.push(
                  channel.subscribe(
                    { next: () => (step.async ? (pending.push(new Subject<void>()), pending[pending.length - 1]) : undefined), error: () => undefined },
                    step.own === undefined ? undefined : { bufferSize: 2, backpressure: step.own },
                  ),
                );
                break;
              case 'release':
                pending.shift()?.complete();
                break;
              case 'unsubscribe':
                subscriptions.shift()?.unsubscribe();
                break;
              case 'advance':
                scheduler.maxFrames = scheduler.now() + step.ms;
                scheduler.flush();
                break;
              case 'complete':
                channel.complete();
                break;
              case 'close':
                channel.close();
                break;
            }
          } catch {
            // emit may throw by design (ERROR strategy, closed channel); the counters must still balance.
          }
          if (!balanced(channel.metrics())) return false;
        }
        return true;
      }),
      { numRuns: 300 },
    );
  });

  it('property: every subscriber sees the items in emission order', () => {
    fc.assert(
      fc.property(strategies.filter((s) => s !== 'ERROR'), fc.array(fc.boolean(), { maxLength: 80 }), (strategy, steps) => {
        const channel = StreamingChannel.create<number>({ bufferSize: 3, backpressure: strategy, scheduler: new TestScheduler(() => undefined) });
        const pending: Subject<void>[] = [];
        const seen: number[][] = [[], [], []];
        channel.subscribe((n) => void seen[0]!.push(n));
        channel.subscribe((n) => (seen[1]!.push(n), (pending.push(new Subject<void>()), pending[pending.length - 1])));
        channel.subscribe((n) => (seen[2]!.push(n), (pending.push(new Subject<void>()), pending[pending.length - 1])), { bufferSize: 2, backpressure: strategy });
        let next = 0;
        for (const emit of steps) {
          if (emit) channel.emit(next++);
          else pending.shift()?.complete();
        }
        return seen.every((items) => items.every((n, i) => i === 0 || n > items[i - 1]!));
      }),
    );
  });

  it('property: DROP_OLDEST keeps the newest bufferSize items', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.array(fc.integer(), { maxLength: 200 }), (bufferSize, items) => {
        const channel = StreamingChannel.create<number>({ bufferSize });
        channel.emitAll(items);
        const seen: number[] = [];
        channel.subscribe((n) => void seen.push(n));
        return JSON.stringify(seen) === JSON.stringify(items.slice(Math.max(0, items.length - bufferSize)));
      }),
    );
  });

  it('property: BLOCK loses nothing when every offer is taken within its timeout', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 8 }), fc.array(fc.integer(), { maxLength: 60 }), fc.boolean(), async (bufferSize, items, awaitEach) => {
        const channel = StreamingChannel.create<number>({
          bufferSize,
          backpressure: BackpressureStrategy.BLOCK,
          maxPendingOffers: 100,
          scheduler: new TestScheduler(() => undefined),
        });
        const seen: number[] = [];
        channel.subscribe(async (n) => void seen.push(n));
        const results: boolean[] = [];
        if (awaitEach) for (const item of items) results.push(await channel.offer(item));
        else results.push(...(await Promise.all(items.map((item) => channel.offer(item)))));
        channel.complete();
        await new Promise<void>((resolve) => channel.onComplete(resolve));
        return results.every(Boolean) && JSON.stringify(seen) === JSON.stringify(items) && channel.metrics().dropped === 0;
      }),
      { numRuns: 100 },
    );
  });

  it('metrics$ emits at most once per metricsSampleTime while the counters change, and completes with the channel', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const channel = StreamingChannel.create<number>({ id: 'm', bufferSize: 100, metricsSampleTime: 10 });
      cold('a-b-c 20ms d').subscribe({ next: () => channel.emit(1) });
      cold('40ms x').subscribe(() => channel.complete());
      cold('41ms x').subscribe(() => channel.subscribe(() => undefined));
      expectObservable(channel.metrics$, '^ 100ms !').toBe('a 9ms b 19ms c 9ms d 9ms (e|)', {
        a: expect.objectContaining({ emitted: 1 }),
        b: expect.objectContaining({ emitted: 3 }),
        c: expect.objectContaining({ emitted: 4, completed: false }),
        d: expect.objectContaining({ emitted: 4, delivered: 0, completed: true }),
        e: expect.objectContaining({ emitted: 4, delivered: 4, completed: true }),
      });
    });
  });
});

describe('ChannelMetrics as data', () => {
  it('JSON.stringify keeps every counter and dropRate as a number', () => {
    const channel = StreamingChannel.create<number>({ id: 'json', bufferSize: 2 });
    [1, 2, 3, 4].forEach((n) => channel.emit(n));
    const metrics = channel.metrics();
    const data = JSON.parse(JSON.stringify(metrics)) as Record<string, unknown>;
    expect(data).toEqual({
      channelId: 'json',
      emitted: 4,
      delivered: 0,
      dropped: 2,
      bufferUsed: 2,
      bufferCapacity: 2,
      pendingOffers: 0,
      subscriberCount: 0,
      subscriberDropped: 0,
      completed: false,
      closed: false,
      errored: false,
      dropRate: 50,
    });
    expect(metrics.dropRate()).toBe(50);
  });
});
