import fc from 'fast-check';
import { config, Observable, Subject } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { BackpressureStrategy, StreamingChannel, type ChannelMetrics } from '@rxagents/streaming';

const flushMicrotasks = () => new Promise<void>((resolve) => setImmediate(resolve));

/** emitted = delivered + dropped + bufferUsed + pendingOffers */
const balanced = (m: ChannelMetrics) => m.emitted === m.delivered + m.dropped + m.bufferUsed + m.pendingOffers;

/** A thenable whose `then` throws. */
const throwingThenable = (message: string): PromiseLike<void> => ({
  then() {
    throw new Error(message);
  },
});

const strategies = fc.constantFrom(...Object.values(BackpressureStrategy));
const behaviours = ['ok', 'throw', 'pending', 'throwingThen', 'thenTwiceThenThrow', 'throwingSubscribe', 'unsubscribeSelf', 'emitBack'] as const;
type Behaviour = (typeof behaviours)[number];
type Step =
  | { kind: 'emit' }
  | { kind: 'subscribe'; behaviour: Behaviour; own: BackpressureStrategy | undefined }
  | { kind: 'release' }
  | { kind: 'unsubscribe' }
  | { kind: 'advance' }
  | { kind: 'complete' };
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: 'emit' } as const) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('subscribe' as const), behaviour: fc.constantFrom(...behaviours), own: fc.option(strategies, { nil: undefined }) }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'release' } as const) },
  { weight: 1, arbitrary: fc.constant({ kind: 'unsubscribe' } as const) },
  { weight: 1, arbitrary: fc.constant({ kind: 'advance' } as const) },
  { weight: 1, arbitrary: fc.constant({ kind: 'complete' } as const) },
);

describe('StreamingChannel: a channel never stops delivering', () => {
  let unhandled: unknown[];
  beforeEach(() => {
    unhandled = [];
    config.onUnhandledError = (error) => unhandled.push(error);
  });
  afterEach(() => {
    config.onUnhandledError = null;
  });

  describe('a handler that unsubscribes itself before returning what to wait for', () => {
    it('an async handler: the others keep receiving and onComplete runs', async () => {
      const channel = StreamingChannel.create<string>({ id: 'stuck' });
      const other: string[] = [];
      channel.subscribe((item) => void other.push(item));
      const once = channel.subscribe(async () => {
        once.unsubscribe();
        await Promise.resolve();
      });
      const completed = jest.fn();
      channel.onComplete(completed);
      channel.emitAll(['a', 'b', 'c']);
      channel.complete();
      expect(other).toEqual(['a', 'b', 'c']);
      expect(completed).toHaveBeenCalledTimes(1);
      await flushMicrotasks();
      expect(channel.metrics()).toMatchObject({ emitted: 3, delivered: 3, subscriberCount: 0 });
    });

    it('a handler returning an Observable is not subscribed, and one with its own buffer does not hold the channel', () => {
      const channel = StreamingChannel.create<string>({ bufferSize: 2 });
      const other: string[] = [];
      channel.subscribe((item) => void other.push(item));
      const inner = new Subject<void>();
      const observable = channel.subscribe(() => {
        observable.unsubscribe();
        return inner;
      });
      const buffered = channel.subscribe(
        () => {
          buffered.unsubscribe();
          return new Promise<void>(() => undefined);
        },
        { bufferSize: 1, backpressure: BackpressureStrategy.BLOCK },
      );
      const completed = jest.fn();
      channel.onComplete(completed);
      channel.emitAll(['a', 'b', 'c', 'd']);
      channel.complete();
      expect(inner.observed).toBe(false);
      expect(other).toEqual(['a', 'b', 'c', 'd']);
      expect(completed).toHaveBeenCalledTimes(1);
    });

    it("a handler's Observable that unsubscribes the subscriber while being subscribed is cancelled", () => {
      const channel = StreamingChannel.create<string>();
      const inner = new Subject<void>();
      const self = channel.subscribe(
        () =>
          new Observable<void>((subscriber) => {
            self.unsubscribe();
            return inner.subscribe(subscriber);
          }),
      );
      channel.emit('a');
      expect(inner.observed).toBe(false);
      expect(channel.metrics().subscriberCount).toBe(0);
    });

    it('a rejection after unsubscribing is ignored, as RxJS ignores notifications after unsubscription', async () => {
      const channel = StreamingChannel.create<string>();
      const errors = jest.fn();
      channel.onError(errors);
      const once = channel.subscribe(async () => {
        once.unsubscribe();
        throw new Error('late');
      });
      channel.emit('a');
      await flushMicrotasks();
      expect(errors).not.toHaveBeenCalled();
      expect(unhandled).toEqual([]);
    });
  });

  describe('user code that throws anywhere during delivery is reported and the channel goes on', () => {
    it('a thenable whose then throws', () => {
      const channel = StreamingChannel.create<number>();
      const errors: [unknown, unknown][] = [];
      channel.onError((error, item) => errors.push([error, item]));
      const seen: number[] = [];
      const other: number[] = [];
      channel.subscribe((n) => {
        seen.push(n);
        return n === 2 ? throwingThenable('then broke') : undefined;
      });
      channel.subscribe((n) => void other.push(n));
      const completed = jest.fn();
      channel.onComplete(completed);
      channel.emitAll([1, 2, 3, 4, 5]);
      channel.complete();
      expect(seen).toEqual([1, 2, 3, 4, 5]);
      expect(other).toEqual([1, 2, 3, 4, 5]);
      expect(errors).toEqual([[new Error('then broke'), 2]]);
      expect(completed).toHaveBeenCalledTimes(1);
      expect(channel.metrics()).toMatchObject({ emitted: 5, delivered: 5, bufferUsed: 0 });
    });

    it('a subscribable whose subscribe throws, and a getter of then that throws', () => {
      const channel = StreamingChannel.create<number>();
      const errors: unknown[] = [];
      channel.onError((error) => errors.push(error));
      const badSubscribe = { subscribe: () => { throw new Error('subscribe broke'); } };
      const badGetter = Object.defineProperty({}, 'then', { get: () => { throw new Error('getter broke'); } });
      channel.subscribe((n) => (n === 1 ? (badSubscribe as unknown as Observable<void>) : n === 2 ? (badGetter as PromiseLike<void>) : undefined));
      const other: number[] = [];
      channel.subscribe((n) => void other.push(n));
      channel.emitAll([1, 2, 3]);
      expect(other).toEqual([1, 2, 3]);
      expect(errors).toEqual([new Error('subscribe broke'), new Error('getter broke')]);
      expect(balanced(channel.metrics())).toBe(true);
    });

    it("a subscriber's own error callback that throws (its ERROR buffer overflowed)", async () => {
      const channel = StreamingChannel.create<number>({ bufferSize: 8 });
      const errors: unknown[] = [];
      channel.onError((error) => errors.push(error));
      channel.subscribe(
        { next: () => new Promise<void>(() => undefined), error: () => { throw new Error('error callback broke'); } },
        { bufferSize: 1, backpressure: BackpressureStrategy.ERROR },
      );
      const other: number[] = [];
      channel.subscribe((n) => void other.push(n));
      const completed = jest.fn();
      channel.onComplete(completed);
      channel.emitAll([1, 2, 3, 4, 5]);
      channel.complete();
      expect(other).toEqual([1, 2, 3, 4, 5]);
      expect(errors).toEqual([new Error('error callback broke')]);
      expect(completed).toHaveBeenCalledTimes(1);
      expect(channel.metrics()).toMatchObject({ emitted: 5, delivered: 5, bufferUsed: 0, subscriberCount: 0 });
    });

    it('a throwing config.onUnhandledError does not escape into the producer', () => {
      config.onUnhandledError = () => {
        throw new Error('reporter broke');
      };
      const channel = StreamingChannel.create<number>();
      const other: number[] = [];
      channel.subscribe(() => {
        throw new Error('nobody listens');
      });
      channel.subscribe((n) => void other.push(n));
      const later: (() => void)[] = [];
      const microtask = jest.spyOn(globalThis, 'queueMicrotask').mockImplementation((callback) => void later.push(callback));
      try {
        expect(() => channel.emitAll([1, 2])).not.toThrow();
      } finally {
        microtask.mockRestore();
      }
      expect(other).toEqual([1, 2]);
      expect(channel.metrics()).toMatchObject({ emitted: 2, delivered: 2 });
      // The reporter's own failure is rethrown asynchronously, as RxJS does.
      expect(later).toHaveLength(2);
      expect(later[0]).toThrow('reporter broke');
    });
  });

  describe('derived channels at any depth', () => {
    const chain = (root: StreamingChannel<number>, depth: number): StreamingChannel<number> => {
      let channel = root;
      for (let i = 0; i < depth; i++) channel = i % 2 === 0 ? channel.map((n) => n + 1) : channel.filter(() => true);
      return channel;
    };

    it('10,000 derived channels deliver, complete and run onComplete without growing the stack', () => {
      const root = StreamingChannel.create<number>({ id: 'root' });
      const deepest = chain(root, 10_000);
      const seen: number[] = [];
      const done = jest.fn();
      deepest.subscribe({ next: (n) => void seen.push(n), complete: done });
      const finished = jest.fn();
      deepest.onComplete(finished);
      root.emitAll([0, 1, 2]);
      expect(seen).toEqual([5_000, 5_001, 5_002]);
      root.complete();
      expect(done).toHaveBeenCalledTimes(1);
      expect(finished).toHaveBeenCalledTimes(1);
      expect(deepest.metrics()).toMatchObject({ emitted: 3, delivered: 3, completed: true });
      expect(unhandled).toEqual([]);
    });

    it('10,000 derived channels close with their root', () => {
      const root = StreamingChannel.create<number>();
      const deepest = chain(root, 10_000);
      const done = jest.fn();
      deepest.subscribe({ complete: done });
      root.emit(1);
      root.close();
      expect(done).toHaveBeenCalledTimes(1);
      expect(deepest.metrics().closed).toBe(true);
      expect(unhandled).toEqual([]);
    });

    it('10,000 derived BLOCK channels pace a slow subscriber at the end and lose nothing', async () => {
      const root = StreamingChannel.create<number>({ bufferSize: 1, backpressure: BackpressureStrategy.BLOCK, offerTimeout: Infinity });
      const deepest = chain(root, 10_000);
      const seen: number[] = [];
      deepest.subscribe(async (n) => {
        seen.push(n);
        await Promise.resolve();
      });
      for (let n = 0; n < 5; n++) await root.offer(n);
      root.complete();
      const finished = new Promise<void>((resolve) => deepest.onComplete(resolve));
      await finished;
      expect(seen).toEqual([5_000, 5_001, 5_002, 5_003, 5_004]);
      expect(deepest.metrics().dropped).toBe(0);
      expect(unhandled).toEqual([]);
    });
  });

  describe('order per subscriber', () => {
    it('a subscriber with its own buffer keeps channel order when a handler emits back into the channel', async () => {
      const channel = StreamingChannel.create<string>();
      let release!: () => void;
      const seen: string[] = [];
      channel.subscribe(
        (item) => {
          seen.push(item);
          if (item === 'a') return new Promise<void>((resolve) => (release = resolve));
          if (item === 'b') channel.emit('x');
          return undefined;
        },
        { bufferSize: 8 },
      );
      const order: string[] = [];
      channel.subscribe((item) => void order.push(item));
      channel.emitAll(['a', 'b', 'c']);
      release();
      await flushMicrotasks();
      expect(order).toEqual(['a', 'b', 'c', 'x']);
      expect(seen).toEqual(['a', 'b', 'c', 'x']);
    });
  });

  it('property: whatever user code throws at any point, the counters balance, a plain subscriber sees every delivered item in order, and complete() finishes', () => {
    fc.assert(
      fc.property(strategies, fc.integer({ min: 1, max: 4 }), fc.boolean(), fc.array(step, { maxLength: 50 }), (strategy, bufferSize, throwingOnError, steps) => {
        unhandled = [];
        const scheduler = new TestScheduler(() => undefined);
        const channel = StreamingChannel.create<number>({ bufferSize, backpressure: strategy, offerTimeout: 10, maxPendingOffers: 2, scheduler });
        channel.onError(() => {
          if (throwingOnError) throw new Error('onError broke');
        });
        const completed = jest.fn(() => {
          throw new Error('onComplete broke');
        });
        channel.onComplete(completed);
        const witness: number[] = [];
        channel.subscribe((n) => void witness.push(n));
        const pending: Subject<void>[] = [];
        const subscriptions: { unsubscribe(): void }[] = [];
        let next = 0;
        const handler = (behaviour: Behaviour, self: () => { unsubscribe(): void } | undefined) => (n: number) => {
          switch (behaviour) {
            case 'ok':
              return undefined;
            case 'throw':
              throw new Error(`handler broke on ${n}`);
            case 'pending': {
              const gate = new Subject<void>();
              pending.push(gate);
              return gate;
            }
            case 'throwingThen':
              return throwingThenable('then broke');
            case 'thenTwiceThenThrow':
              return {
                then(resolve: () => void) {
                  resolve();
                  resolve();
                  throw new Error('then broke after resolving');
                },
              } as PromiseLike<void>;
            case 'throwingSubscribe':
              return { subscribe: () => { throw new Error('subscribe broke'); } } as unknown as Observable<void>;
            case 'unsubscribeSelf': {
              self()?.unsubscribe();
              return new Subject<void>();
            }
            case 'emitBack':
              if (next < 200) channel.emit(next++);
              return undefined;
          }
        };
        for (const current of steps) {
          try {
            switch (current.kind) {
              case 'emit':
                channel.emit(next++);
                break;
              case 'subscribe': {
                let subscription: { unsubscribe(): void } | undefined;
                subscription = channel.subscribe(
                  {
                    next: handler(current.behaviour, () => subscription),
                    error: () => {
                      throw new Error('error callback broke');
                    },
                    complete: () => {
                      throw new Error('complete callback broke');
                    },
                  },
                  current.own === undefined ? undefined : { bufferSize: 2, backpressure: current.own },
                );
                subscriptions.push(subscription);
                break;
              }
              case 'release':
                pending.shift()?.complete();
                break;
              case 'unsubscribe':
                subscriptions.shift()?.unsubscribe();
                break;
              case 'advance':
                scheduler.maxFrames = scheduler.now() + 5;
                scheduler.flush();
                break;
              case 'complete':
                channel.complete();
                break;
            }
          } catch {
            // emit may throw by design (ERROR strategy, a completed channel); the counters must still balance.
          }
          if (!balanced(channel.metrics())) return false;
        }
        channel.complete();
        while (pending.length > 0) pending.shift()?.complete();
        scheduler.maxFrames = Infinity;
        scheduler.flush();
        const metrics = channel.metrics();
        return (
          balanced(metrics) &&
          witness.length === metrics.delivered &&
          witness.every((n, i) => i === 0 || n > (witness[i - 1] as number)) &&
          completed.mock.calls.length === 1
        );
      }),
      { numRuns: 300 },
    );
  });
});
