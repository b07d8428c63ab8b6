import { TestScheduler } from 'rxjs/testing';
import { asapScheduler, config, map, queueScheduler, Subject, timer, type SchedulerLike } from 'rxjs';
import { ConfigError } from '@rxagents/core';
import { BackpressureStrategy, BufferOverflowError, ChannelClosedError, StreamingChannel } from '@rxagents/streaming';

/** asapScheduler, counting how many actions are scheduled on it. */
function countingScheduler(): { scheduler: SchedulerLike; scheduled: () => number } {
  let scheduled = 0;
  const scheduler: SchedulerLike = {
    now: () => asapScheduler.now(),
    schedule: (work: never, delay?: number, state?: never) => {
      scheduled += 1;
      return asapScheduler.schedule(work, delay, state);
    },
  };
  return { scheduler, scheduled: () => scheduled };
}

const testScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (error: unknown) => void } {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const flushMicrotasks = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('StreamingChannel', () => {
  describe('delivery', () => {
    it('gives every subscriber every item, in order', () => {
      const channel = StreamingChannel.create<number>();
      const a: number[] = [];
      const b: number[] = [];
      channel.subscribe((n) => void a.push(n));
      channel.subscribe({ next: (n) => void b.push(n) });
      expect(channel.emitAll([1, 2, 3])).toBe(3);
      expect(a).toEqual([1, 2, 3]);
      expect(b).toEqual([1, 2, 3]);
      expect(channel.metrics()).toMatchObject({ emitted: 3, delivered: 3, subscriberCount: 2 });
    });

    it('keeps items emitted before the first subscriber in the buffer, then delivers them', () => {
      const channel = StreamingChannel.create<string>();
      channel.emit('early');
      channel.emit('bird');
      expect(channel.metrics().bufferUsed).toBe(2);
      const seen: string[] = [];
      channel.subscribe((item) => void seen.push(item));
      expect(seen).toEqual(['early', 'bird']);
      expect(channel.metrics()).toMatchObject({ bufferUsed: 0, delivered: 2 });
    });

    it('waits for a handler that returns an Observable (virtual time)', () => {
      const scheduler = testScheduler();
      scheduler.run(({ cold, expectObservable }) => {
        const channel = StreamingChannel.create<string>({ bufferSize: 10 });
        const handled = new Subject<string>();
        channel.subscribe((item) => timer(5).pipe(map(() => handled.next(item))));
        cold('abc').subscribe((item) => channel.emit(item));
        expectObservable(handled).toBe('5ms a 4ms b 4ms c');
      });
    });

    it('waits for a handler that returns a Promise; items accumulate and the strategy acts on them', async () => {
      const channel = StreamingChannel.create<number>({ bufferSize: 2 });
      const gate = deferred();
      const seen: number[] = [];
      channel.subscribe((n) => {
        seen.push(n);
        return n === 1 ? gate.promise : undefined;
      });
      channel.emitAll([1, 2, 3, 4, 5]);
      expect(seen).toEqual([1]);
      expect(channel.metrics()).toMatchObject({ bufferUsed: 2, dropped: 2 });
      gate.resolve();
      await flushMicrotasks();
      expect(seen).toEqual([1, 4, 5]);
    });

    it('a slow subscriber without its own buffer paces every subscriber', async () => {
      const channel = StreamingChannel.create<number>({ bufferSize: 8 });
      const gate = deferred();
      const fast: number[] = [];
      channel.subscribe(() => gate.promise);
      channel.subscribe((n) => void fast.push(n));
      channel.emitAll([1, 2, 3]);
      expect(fast).toEqual([1]);
      gate.resolve();
      await flushMicrotasks();
      expect(fast).toEqual([1, 2, 3]);
    });

    it('drains on dispatchScheduler, in one batch per scheduled action, not one action per item', () => {
      testScheduler().run(({ flush }) => {
        const { scheduler: counting, scheduled } = countingScheduler();
        const channel = StreamingChannel.create<number>({ dispatchScheduler: counting });
        const seen: number[] = [];
        channel.subscribe((n) => void seen.push(n));
        channel.emitAll([1, 2, 3, 4]);
        expect(seen).toEqual([]);
        flush();
        expect(seen).toEqual([1, 2, 3, 4]);
        expect(scheduled()).toBe(1);
      });
    });

    it('keeps delivering with a dispatchScheduler that runs work synchronously (queueScheduler)', () => {
      const channel = StreamingChannel.create<number>({ dispatchScheduler: queueScheduler });
      const seen: number[] = [];
      channel.subscribe((n) => void seen.push(n));
      channel.emitAll([1, 2, 3]);
      expect(seen).toEqual([1, 2, 3]);
      channel.emit(4);
      expect(seen).toEqual([1, 2, 3, 4]);
    });
  });

  describe('strategies on a full buffer', () => {
    it('DROP_OLDEST keeps the newest items', () => {
      const channel = StreamingChannel.create<number>({ bufferSize: 3 });
      expect([1, 2, 3, 4, 5].map((n) => channel.emit(n))).toEqual([true, true, true, true, true]);
      const seen: number[] = [];
      channel.subscribe((n) => void seen.push(n));
      expect(seen).toEqual([3, 4, 5]);
      expect(channel.metrics().dropped).toBe(2);
    });

    it('DROP_NEWEST drops the arriving item and emit returns false', () => {
      const channel = StreamingChannel.create<number>({ bufferSize: 2, backpressure: BackpressureStrategy.DROP_NEWEST });
      expect([1, 2, 3].map((n) => channel.emit(n))).toEqual([true, true, false]);
      expect(channel.emitAll([4, 5])).toBe(0);
      const seen: number[] = [];
      channel.subscribe((n) => void seen.push(n));
      expect(seen).toEqual([1, 2]);
    });

    it('ERROR throws BufferOverflowError from emit', () => {
      const channel = StreamingChannel.create<number>({ id: 'strict', bufferSize: 1, backpressure: BackpressureStrategy.ERROR });
      channel.emit(1);
      expect(() => channel.emit(2)).toThrow(BufferOverflowError);
      expect(() => channel.emit(3)).toThrow('Channel "strict": buffer is full (capacity 1)');
      expect(channel.metrics()).toMatchObject({ emitted: 3, dropped: 2, bufferUsed: 1 });
    });

    it('BLOCK: emit parks the item and returns true; its fate shows in metrics', () => {
      testScheduler().run(({ flush }) => {
        const channel = StreamingChannel.create<number>({ bufferSize: 1, backpressure: BackpressureStrategy.BLOCK, offerTimeout: 10 });
        expect(channel.emit(1)).toBe(true);
        expect(channel.emit(2)).toBe(true);
        expect(channel.metrics()).toMatchObject({ bufferUsed: 1, pendingOffers: 1, dropped: 0 });
        flush();
        expect(channel.metrics()).toMatchObject({ bufferUsed: 1, pendingOffers: 0, dropped: 1 });
      });
    });

    it('BLOCK: offer$ resolves true when space frees in time, false after offerTimeout (virtual time)', () => {
      testScheduler().run(({ cold, expectObservable }) => {
        const channel = StreamingChannel.create<string>({ bufferSize: 1, backpressure: BackpressureStrategy.BLOCK, offerTimeout: 15 });
        channel.subscribe(() => timer(10));
        channel.emit('a');
        channel.emit('b');
        expectObservable(channel.offer$('c')).toBe('10ms (t|)', { t: true });
        const late = cold('-x|');
        late.subscribe(() => channel.emit('d'));
        expectObservable(channel.offer$('e')).toBe('15ms (f|)', { f: false });
      });
    });

    it('BLOCK: past maxPendingOffers an offer fails at once, or throws with strictPendingOffers', async () => {
      const channel = StreamingChannel.create<number>({ bufferSize: 1, backpressure: BackpressureStrategy.BLOCK, maxPendingOffers: 1 });
      channel.emit(1);
      const parked = channel.offer(2);
      await expect(channel.offer(3)).resolves.toBe(false);
      expect(channel.emit(4)).toBe(false);
      expect(channel.metrics()).toMatchObject({ pendingOffers: 1, dropped: 2 });
      channel.subscribe(() => undefined);
      await expect(parked).resolves.toBe(true);

      const strict = StreamingChannel.create<number>({ bufferSize: 1, backpressure: BackpressureStrategy.BLOCK, maxPendingOffers: 0, strictPendingOffers: true });
      strict.emit(1);
      expect(() => strict.emit(2)).toThrow(BufferOverflowError);
      await expect(strict.offer(3)).rejects.toThrow(BufferOverflowError);
    });

    it('BLOCK: offers that park and unpark over and over arm one timer, not one per item', () => {
      testScheduler().run(({ flush }) => {
        const { scheduler: counting, scheduled } = countingScheduler();
        const channel = StreamingChannel.create<number>({ bufferSize: 1, backpressure: BackpressureStrategy.BLOCK, offerTimeout: 1_000, scheduler: counting });
        const gates: Subject<void>[] = [];
        const seen: number[] = [];
        channel.subscribe((n) => (seen.push(n), (gates.push(new Subject<void>()), gates[gates.length - 1])));
        channel.emit(0);
        channel.emit(1);
        for (let n = 2; n < 200; n++) {
          channel.emit(n);
          gates.shift()?.complete();
        }
        expect(channel.metrics()).toMatchObject({ dropped: 0, pendingOffers: 0, bufferUsed: 1 });
        expect(scheduled()).toBe(1);
        while (gates.length > 0) gates.shift()?.complete();
        flush();
        expect(seen).toEqual(Array.from({ length: 200 }, (_, i) => i));
      });
    });

    it('an unsubscribed offer$ withdraws its parked item', () => {
      testScheduler().run(() => {
        const channel = StreamingChannel.create<number>({ bufferSize: 1, backpressure: BackpressureStrategy.BLOCK });
        channel.emit(1);
        const subscription = channel.offer$(2).subscribe();
        expect(channel.metrics().pendingOffers).toBe(1);
        subscription.unsubscribe();
        expect(channel.metrics()).toMatchObject({ pendingOffers: 0, dropped: 1 });
        const seen: number[] = [];
        channel.subscribe((n) => void seen.push(n));
        expect(seen).toEqual([1]);
      });
    });
  });

  describe('complete vs close', () => {
    it('emit after complete() or close() throws ChannelClosedError', async () => {
      const completed = StreamingChannel.create<number>({ id: 'c' });
      completed.complete();
      expect(() => completed.emit(1)).toThrow(ChannelClosedError);
      expect(() => completed.emit(1)).toThrow('Channel "c" is completed; it accepts no more items');
      await expect(completed.offer(1)).rejects.toThrow(ChannelClosedError);
      const closed = StreamingChannel.create<number>({ id: 'k' });
      closed.close();
      expect(() => closed.emit(1)).toThrow('Channel "k" is closed; it accepts no more items');
    });

    it('complete() delivers buffered and parked items, then runs onComplete, then completes subscribers', async () => {
      const channel = StreamingChannel.create<number>({ bufferSize: 1, backpressure: BackpressureStrategy.BLOCK });
      const events: string[] = [];
      channel.emit(1);
      const parked = channel.offer(2);
      channel.onComplete(() => events.push('onComplete'));
      channel.complete();
      expect(channel.metrics().completed).toBe(true);
      channel.subscribe({ next: (n) => void events.push(`item ${n}`), complete: () => events.push('subscriber complete') });
      await expect(parked).resolves.toBe(true);
      expect(events).toEqual(['item 1', 'item 2', 'onComplete', 'subscriber complete']);
      const late: string[] = [];
      channel.onComplete(() => late.push('late onComplete'));
      channel.subscribe({ complete: () => late.push('late subscriber complete') });
      expect(late).toEqual(['late onComplete', 'late subscriber complete']);
    });

    it('complete() waits for a pending handler before completing', async () => {
      const channel = StreamingChannel.create<number>();
      const gate = deferred();
      const events: string[] = [];
      channel.subscribe({ next: () => gate.promise, complete: () => events.push('complete') });
      channel.onComplete(() => events.push('onComplete'));
      channel.emit(1);
      channel.complete();
      expect(events).toEqual([]);
      gate.resolve();
      await flushMicrotasks();
      expect(events).toEqual(['onComplete', 'complete']);
    });

    it('close() discards the buffer and parked offers, completes subscribers, skips onComplete', async () => {
      const channel = StreamingChannel.create<number>({ bufferSize: 2, backpressure: BackpressureStrategy.BLOCK });
      const gate = deferred();
      const events: string[] = [];
      channel.subscribe({ next: (n) => (events.push(`item ${n}`), gate.promise), complete: () => events.push('complete') });
      channel.onComplete(() => events.push('onComplete'));
      channel.emitAll([1, 2, 3]);
      const parked = channel.offer(4);
      channel.close();
      await expect(parked).resolves.toBe(false);
      gate.resolve();
      await flushMicrotasks();
      expect(events).toEqual(['item 1', 'complete']);
      expect(channel.metrics()).toMatchObject({ emitted: 4, delivered: 1, dropped: 3, bufferUsed: 0, pendingOffers: 0, closed: true, subscriberCount: 0 });
    });

    it('close() during complete() wins: the rest is discarded', () => {
      const channel = StreamingChannel.create<number>();
      channel.emitAll([1, 2]);
      channel.complete();
      channel.close();
      const completed = jest.fn();
      channel.subscribe({ next: () => undefined, complete: completed });
      expect(completed).toHaveBeenCalledTimes(1);
      expect(channel.metrics()).toMatchObject({ dropped: 2, closed: true });
    });
  });

  describe('faults', () => {
    afterEach(() => {
      config.onUnhandledError = null;
    });

    it('a subscriber that throws is reported to onError and the dispatcher keeps going', () => {
      const channel = StreamingChannel.create<number>();
      const errors: [unknown, unknown][] = [];
      const others: number[] = [];
      channel.onError((error, item) => errors.push([error, item]));
      channel.subscribe((n) => {
        if (n === 2) throw new Error('bad item');
      });
      channel.subscribe((n) => void others.push(n));
      channel.emitAll([1, 2, 3]);
      expect(errors).toEqual([[new Error('bad item'), 2]]);
      expect(others).toEqual([1, 2, 3]);
    });

    it('an async subscriber that rejects is reported to onError and the dispatcher keeps going', async () => {
      const channel = StreamingChannel.create<number>();
      const errors: unknown[] = [];
      const seen: number[] = [];
      channel.onError((error) => errors.push(error));
      channel.subscribe(async (n) => {
        seen.push(n);
        if (n === 1) throw new Error('rejected');
      });
      channel.emitAll([1, 2]);
      await flushMicrotasks();
      expect(errors).toEqual([new Error('rejected')]);
      expect(seen).toEqual([1, 2]);
    });

    it('an onError handler that throws is reported as unhandled; the others still run and dispatch goes on', () => {
      const unhandled: unknown[] = [];
      config.onUnhandledError = (error) => unhandled.push(error);
      const channel = StreamingChannel.create<number>();
      const second = jest.fn();
      channel.onError(() => {
        throw new Error('listener broke');
      });
      channel.onError(second);
      const seen: number[] = [];
      channel.subscribe((n) => {
        seen.push(n);
        if (n === 1) throw new Error('subscriber broke');
      });
      channel.emitAll([1, 2]);
      expect(unhandled).toEqual([new Error('listener broke')]);
      expect(second).toHaveBeenCalledTimes(1);
      expect(seen).toEqual([1, 2]);
    });

    it('without an onError handler a subscriber failure goes to RxJS config.onUnhandledError', () => {
      const unhandled: unknown[] = [];
      config.onUnhandledError = (error) => unhandled.push(error);
      const channel = StreamingChannel.create<number>();
      channel.subscribe(() => {
        throw new Error('nobody listens');
      });
      channel.emit(1);
      expect(unhandled).toEqual([new Error('nobody listens')]);
    });

    it('100,000 emits from inside a subscriber keep order and do not recurse', () => {
      const channel = StreamingChannel.create<number>({ bufferSize: 4 });
      const seen: number[] = [];
      channel.subscribe((n) => {
        seen.push(n);
        if (n < 100_000) channel.emit(n + 1);
      });
      channel.emit(1);
      expect(seen.length).toBe(100_000);
      expect(seen.every((n, i) => n === i + 1)).toBe(true);
      expect(channel.metrics()).toMatchObject({ emitted: 100_000, delivered: 100_000, dropped: 0 });
    });

    it('re-entrant emits are delivered after the current item reached every subscriber', () => {
      const channel = StreamingChannel.create<string>();
      const log: string[] = [];
      channel.subscribe((item) => {
        log.push(`A:${item}`);
        if (item === 'x') channel.emit('y');
      });
      channel.subscribe((item) => void log.push(`B:${item}`));
      channel.emit('x');
      expect(log).toEqual(['A:x', 'B:x', 'A:y', 'B:y']);
    });

    it('unsubscribing mid-item ignores the pending result, cancels an Observable handler and lets the others go on', async () => {
      const channel = StreamingChannel.create<number>();
      const gate = deferred();
      const slow: number[] = [];
      const fast: number[] = [];
      const subscription = channel.subscribe((n) => (slow.push(n), gate.promise));
      channel.subscribe((n) => void fast.push(n));
      channel.emitAll([1, 2, 3]);
      expect(fast).toEqual([1]);
      subscription.unsubscribe();
      expect(fast).toEqual([1, 2, 3]);
      gate.resolve();
      await flushMicrotasks();
      expect(slow).toEqual([1]);

      const inner = new Subject<void>();
      const other = StreamingChannel.create<number>();
      const observed = other.subscribe(() => inner);
      other.emit(1);
      expect(inner.observed).toBe(true);
      observed.unsubscribe();
      expect(inner.observed).toBe(false);
      expect(other.metrics().subscriberCount).toBe(0);
    });
    it('a subscriber unsubscribed by another during an item does not receive it', () => {
      const channel = StreamingChannel.create<string>();
      const log: string[] = [];
      let second: { unsubscribe(): void } | undefined;
      channel.subscribe((item) => {
        log.push(`A:${item}`);
        if (item === 'stop') second?.unsubscribe();
      });
      second = channel.subscribe((item) => void log.push(`B:${item}`));
      channel.emitAll(['a', 'stop', 'b']);
      expect(log).toEqual(['A:a', 'B:a', 'A:stop', 'A:b']);
    });

    it('close() from a subscriber: the others are completed and receive nothing after', () => {
      const channel = StreamingChannel.create<string>();
      const log: string[] = [];
      channel.subscribe((item) => {
        log.push(`A:${item}`);
        if (item === 'stop') channel.close();
      });
      channel.subscribe({ next: (item) => void log.push(`B:${item}`), complete: () => log.push('B:complete') });
      channel.emit('a');
      channel.emit('stop');
      expect(log).toEqual(['A:a', 'B:a', 'A:stop', 'B:complete']);
    });
  });

  describe('derived channels', () => {
    it('map and filter return channels named <id>-mapped / <id>-filtered with the same settings', () => {
      const channel = StreamingChannel.create<string>({ id: 'analysis-stream', bufferSize: 100, backpressure: BackpressureStrategy.BLOCK });
      const filtered = channel.filter((chunk) => chunk.trim() !== '');
      const lengths = filtered.map((chunk) => chunk.length);
      expect(filtered.id).toBe('analysis-stream-filtered');
      expect(lengths.id).toBe('analysis-stream-filtered-mapped');
      expect(lengths.metrics().bufferCapacity).toBe(100);
      const seen: number[] = [];
      const done = jest.fn();
      lengths.subscribe({ next: (n) => void seen.push(n), complete: done });
      channel.emitAll(['first chunk', '  ', 'third']);
      channel.complete();
      expect(seen).toEqual([11, 5]);
      expect(done).toHaveBeenCalledTimes(1);
    });

    it('a derived BLOCK channel paces its parent instead of dropping', async () => {
      const channel = StreamingChannel.create<number>({ bufferSize: 1, backpressure: BackpressureStrategy.BLOCK });
      const doubled = channel.map((n) => n * 2);
      channel.emitAll([1, 2, 3]);
      const seen: number[] = [];
      doubled.subscribe((n) => void seen.push(n));
      await flushMicrotasks();
      expect(seen).toEqual([2, 4, 6]);
      expect(doubled.metrics().dropped).toBe(0);
    });

    it('closing the parent closes derived channels', () => {
      const channel = StreamingChannel.create<number>();
      const mapped = channel.map(String);
      channel.close();
      expect(mapped.metrics().closed).toBe(true);
    });
  });

  describe('configuration', () => {
    it('defaults: random 8-character id, 256, DROP_OLDEST', () => {
      const channel = StreamingChannel.create<number>();
      expect(channel.id).toMatch(/^[a-z0-9]{8}$/);
      expect(channel.metrics().bufferCapacity).toBe(256);
      for (let i = 0; i < 300; i++) channel.emit(i);
      expect(channel.metrics().dropped).toBe(44);
    });

    it.each([null, undefined, 42, {}])('emitAll refuses %p with a ConfigError naming items, emitting nothing', (bad) => {
      const channel = StreamingChannel.create<number>({ id: 'numbers' });
      expect(() => channel.emitAll(bad as never)).toThrow(ConfigError);
      expect(() => channel.emitAll(bad as never)).toThrow(/^StreamingChannel numbers: items must be an iterable/);
      expect(channel.metrics().emitted).toBe(0);
    });

    it('builder and create validate with ConfigError', () => {
      expect(() => StreamingChannel.builder<number>().bufferSize(-1).build()).toThrow(
        'StreamingChannel options: bufferSize must be a positive integer, got -1',
      );
      expect(() => StreamingChannel.create({ offerTimeout: -5 })).toThrow(ConfigError);
      expect(() => StreamingChannel.create({ backpressure: 'WAIT' as BackpressureStrategy })).toThrow(/backpressure must be one of/);
      expect(() => StreamingChannel.create({ bogus: 1 } as never)).toThrow(/bogus is not a known option/);
      expect(() => StreamingChannel.create<number>().subscribe(() => undefined, { bufferSize: 0 })).toThrow(ConfigError);
    });

    it('the builder sets every option', () => {
      const scheduler = testScheduler();
      const channel = StreamingChannel.builder<number>()
        .id('built')
        .bufferSize(3)
        .backpressure(BackpressureStrategy.DROP_NEWEST)
        .offerTimeout(1)
        .maxPendingOffers(2)
        .strictPendingOffers()
        .metricsSampleTime(10)
        .scheduler(scheduler)
        .dispatchScheduler(scheduler)
        .build();
      channel.emitAll([1, 2, 3, 4]);
      expect(channel.metrics()).toMatchObject({ channelId: 'built', bufferCapacity: 3, dropped: 1 });
    });
  });
});
