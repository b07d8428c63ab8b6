import { map, of, Subject, VirtualTimeScheduler, type Observable } from 'rxjs';
import { ConfigError, MAX_DELAY_MS } from '@rxagents/core';
import { backpressure, BackpressureStrategy, StreamingChannel, type ChannelMetrics } from '@rxagents/streaming';

/** Actions still waiting on a VirtualTimeScheduler: the timers that would fire. */
const pending = (scheduler: VirtualTimeScheduler) => scheduler.actions.length;

describe('timer-valued options: Infinity means never, values past MAX_DELAY_MS are refused', () => {
  describe('the channel offerTimeout', () => {
    it('Infinity: a parked offer waits for space however long it takes, and no timer is scheduled', () => {
      const scheduler = new VirtualTimeScheduler();
      const channel = StreamingChannel.create<number>({ bufferSize: 1, backpressure: BackpressureStrategy.BLOCK, offerTimeout: Infinity, scheduler });
      channel.emit(1);
      const results: boolean[] = [];
      channel.offer$(2).subscribe((accepted) => results.push(accepted));
      expect(channel.metrics().pendingOffers).toBe(1);
      expect(pending(scheduler)).toBe(0);
      scheduler.flush();
      expect(results).toEqual([]);
      const seen: number[] = [];
      channel.subscribe((n) => void seen.push(n));
      expect(results).toEqual([true]);
      expect(seen).toEqual([1, 2]);
    });

    it('MAX_DELAY_MS is honoured; one more millisecond is a ConfigError', () => {
      const scheduler = new VirtualTimeScheduler();
      const channel = StreamingChannel.create<number>({ bufferSize: 1, backpressure: BackpressureStrategy.BLOCK, offerTimeout: MAX_DELAY_MS, scheduler });
      channel.emit(1);
      const results: boolean[] = [];
      channel.offer$(2).subscribe((accepted) => results.push(accepted));
      scheduler.maxFrames = MAX_DELAY_MS - 1;
      scheduler.flush();
      expect(results).toEqual([]);
      scheduler.maxFrames = MAX_DELAY_MS;
      scheduler.flush();
      expect(results).toEqual([false]);
      expect(() => StreamingChannel.create({ offerTimeout: MAX_DELAY_MS + 1 })).toThrow(ConfigError);
      expect(() => StreamingChannel.create({ offerTimeout: 2 ** 31 })).toThrow(/offerTimeout must be from 0 to 2147483647 ms/);
      expect(() => StreamingChannel.builder().offerTimeout(Number.NaN).build()).toThrow(/offerTimeout/);
    });
  });

  describe('metricsSampleTime', () => {
    it('Infinity: the snapshot at once, the last one when the channel ends, and no timer at all', () => {
      const scheduler = new VirtualTimeScheduler();
      const channel = StreamingChannel.create<number>({ metricsSampleTime: Infinity, scheduler });
      channel.subscribe(() => undefined);
      const seen: ChannelMetrics[] = [];
      const done = jest.fn();
      channel.metrics$.subscribe({ next: (m) => seen.push(m), complete: done });
      channel.emitAll([1, 2]);
      expect(pending(scheduler)).toBe(0);
      scheduler.flush();
      expect(seen.map((m) => m.emitted)).toEqual([0]);
      channel.complete();
      expect(seen.map((m) => [m.emitted, m.completed])).toEqual([
        [0, false],
        [2, true],
      ]);
      expect(done).toHaveBeenCalledTimes(1);
    });

    it('Infinity after the end, and unsubscribing before it, leave nothing behind', () => {
      const channel = StreamingChannel.create<number>({ metricsSampleTime: Infinity });
      const early = channel.metrics$.subscribe();
      early.unsubscribe();
      channel.close();
      const seen: ChannelMetrics[] = [];
      const done = jest.fn();
      channel.metrics$.subscribe({ next: (m) => seen.push(m), complete: done });
      expect(seen).toHaveLength(1);
      expect(done).toHaveBeenCalledTimes(1);
    });

    it('values past MAX_DELAY_MS, and 0, are a ConfigError', () => {
      expect(() => StreamingChannel.create({ metricsSampleTime: 2 ** 31 })).toThrow(/metricsSampleTime must be a number of milliseconds greater than 0 and at most 2147483647/);
      expect(() => StreamingChannel.create({ metricsSampleTime: 0 })).toThrow(ConfigError);
      expect(StreamingChannel.create({ metricsSampleTime: MAX_DELAY_MS }).id).toBeDefined();
    });
  });

  describe('the backpressure operator offerTimeout', () => {
    it('Infinity: a parked value waits however long it takes, and no timer is scheduled', () => {
      const scheduler = new VirtualTimeScheduler();
      const gate = new Subject<void>();
      const source = new Subject<string>();
      const out: string[] = [];
      const dropped: string[] = [];
      source
        .pipe(
          backpressure((value): Observable<string> => (value === 'a' ? gate.pipe(map(() => value)) : of(value)), {
            bufferSize: 1,
            backpressure: BackpressureStrategy.BLOCK,
            offerTimeout: Infinity,
            scheduler,
            onDrop: (value) => dropped.push(value),
          }),
        )
        .subscribe((value) => out.push(value));
      source.next('a');
      source.next('b');
      source.next('c');
      expect(pending(scheduler)).toBe(0);
      scheduler.flush();
      expect(dropped).toEqual([]);
      gate.next();
      gate.complete();
      expect(out).toEqual(['a', 'b', 'c']);
    });

    it('values past MAX_DELAY_MS are a ConfigError', () => {
      expect(() => backpressure(of, { offerTimeout: 2 ** 31 })).toThrow(/offerTimeout must be from 0 to 2147483647 ms/);
      expect(() => backpressure(of, { offerTimeout: MAX_DELAY_MS })).not.toThrow();
    });
  });
});
