import { from, take, takeUntil } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { ConfigError, fromAbortSignal } from '@rxagents/core';
import { ChannelClosedError, StreamingChannel, toChannel } from '@rxagents/streaming';

const testScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe('StreamingChannel onLastUnsubscribe', () => {
  it("keep (the default): the channel stays open and buffers for the next subscriber; the signal is never aborted", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const channel = StreamingChannel.create<string>();
      cold('a-b-c-d|').subscribe((item) => channel.emit(item));
      expectObservable(from(channel).pipe(take(2))).toBe('a-(b|)');
      expectObservable(from(channel), '----^').toBe('----c-d');
    });
    const channel = StreamingChannel.create<string>();
    channel.subscribe(() => undefined).unsubscribe();
    expect(channel.metrics().closed).toBe(false);
    expect(channel.signal.aborted).toBe(false);
  });

  it('close: the last subscriber leaving closes the channel; the producer is refused, the signal stays quiet', () => {
    testScheduler().run(({ cold, expectObservable, flush }) => {
      const channel = StreamingChannel.create<string>({ onLastUnsubscribe: 'close' });
      const refused: unknown[] = [];
      cold('a-b-c-d|').subscribe((item) => {
        try {
          channel.emit(item);
        } catch (error) {
          refused.push(error);
        }
      });
      expectObservable(from(channel).pipe(take(2))).toBe('a-(b|)');
      flush();
      expect(channel.metrics()).toMatchObject({ closed: true, subscriberCount: 0, emitted: 2 });
      expect(refused).toHaveLength(2);
      expect(refused[0]).toBeInstanceOf(ChannelClosedError);
      expect(channel.signal.aborted).toBe(false);
    });
  });

  it('abort: the last subscriber leaving closes the channel and aborts its signal, which stops the producer', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const channel = StreamingChannel.create<string>({ onLastUnsubscribe: 'abort' });
      const tokens = cold('a-b-c-d-e-f|');
      tokens.pipe(takeUntil(fromAbortSignal(channel.signal)), toChannel(channel)).subscribe();
      expectObservable(from(channel).pipe(take(3))).toBe('a-b-(c|)');
      expectSubscriptions(tokens.subscriptions).toBe('^---!');
    });
  });

  it('abort: a signal first read after the last subscriber left is already aborted, with ChannelClosedError as reason', () => {
    const channel = StreamingChannel.create<string>({ id: 'tokens', onLastUnsubscribe: 'abort' });
    channel.emitAll(['a', 'b']);
    const first = channel.subscribe(() => undefined);
    const second = channel.subscribe(() => undefined);
    first.unsubscribe();
    expect(channel.metrics().closed).toBe(false);
    second.unsubscribe();
    expect(channel.metrics()).toMatchObject({ closed: true });
    expect(channel.signal.aborted).toBe(true);
    expect(channel.signal.reason).toBeInstanceOf(ChannelClosedError);
    expect(channel.signal.reason).toMatchObject({ channelId: 'tokens', state: 'closed' });
  });

  it('leaving a for await loop is leaving: the channel closes', async () => {
    const channel = StreamingChannel.create<number>({ onLastUnsubscribe: 'close' });
    channel.emitAll([1, 2, 3]);
    for await (const n of channel) if (n === 1) break;
    expect(channel.metrics()).toMatchObject({ closed: true, dropped: 2, bufferUsed: 0 });
  });

  it('subscribers removed because the channel ended do not count as leaving', () => {
    const channel = StreamingChannel.create<number>({ onLastUnsubscribe: 'abort' });
    const subscription = channel.subscribe(() => undefined);
    channel.complete();
    subscription.unsubscribe();
    expect(channel.metrics()).toMatchObject({ completed: true, closed: false });
    expect(channel.signal.aborted).toBe(false);
  });

  it('a derived channel shares the option: its last subscriber leaving closes it, and then its parent', () => {
    const channel = StreamingChannel.create<number>({ onLastUnsubscribe: 'abort' });
    const doubled = channel.map((n) => n * 2);
    const seen: number[] = [];
    const subscription = doubled.subscribe((n) => void seen.push(n));
    channel.emit(1);
    subscription.unsubscribe();
    expect(seen).toEqual([2]);
    expect(doubled.metrics().closed).toBe(true);
    expect(channel.metrics()).toMatchObject({ closed: true, subscriberCount: 0 });
    expect(channel.signal.aborted).toBe(true);
  });

  it('a derived channel nobody reads does not keep its parent going: the last real subscriber leaving aborts it', () => {
    const channel = StreamingChannel.create<number>({ onLastUnsubscribe: 'abort' });
    const doubled = channel.map((n) => n * 2);
    const evens = doubled.filter((n) => n % 4 === 0);
    const seen: number[] = [];
    const subscription = channel.subscribe((n) => void seen.push(n));
    channel.emit(1);
    subscription.unsubscribe();
    expect(seen).toEqual([1]);
    expect(channel.signal.aborted).toBe(true);
    expect([channel.metrics().closed, doubled.metrics().closed, evens.metrics().closed]).toEqual([true, true, true]);
  });

  it('a derived channel with a reader, at any depth, keeps its parent going until that reader leaves too', () => {
    const channel = StreamingChannel.create<number>({ onLastUnsubscribe: 'abort' });
    const evens = channel.map((n) => n * 2).filter((n) => n % 4 === 0);
    channel.filter((n) => n > 100); // read by nobody
    const seen: number[] = [];
    const direct = channel.subscribe(() => undefined);
    const derived = evens.subscribe((n) => void seen.push(n));
    direct.unsubscribe();
    expect(channel.signal.aborted).toBe(false);
    channel.emitAll([1, 2]);
    expect(seen).toEqual([4]);
    derived.unsubscribe();
    expect(channel.signal.aborted).toBe(true);
  });

  it('rejects an unknown action with a ConfigError naming the option', () => {
    expect(() => StreamingChannel.create({ onLastUnsubscribe: 'stop' as 'close' })).toThrow(ConfigError);
    expect(() => StreamingChannel.create({ onLastUnsubscribe: 'stop' as 'close' })).toThrow(/onLastUnsubscribe/);
    expect(StreamingChannel.builder<string>().onLastUnsubscribe('abort').build().signal.aborted).toBe(false);
  });
});
