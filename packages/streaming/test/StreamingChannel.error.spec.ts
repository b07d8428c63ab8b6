import { from, map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { BackpressureStrategy, ChannelClosedError, StreamingChannel } from '@rxagents/streaming';

const testScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const failure = new Error('model unavailable');

describe('StreamingChannel.error', () => {
  it('delivers the buffered items first, then fails every subscriber; onComplete handlers do not run', () => {
    const channel = StreamingChannel.create<string>();
    channel.emitAll(['a', 'b']);
    const events: string[] = [];
    let completed = false;
    channel.onComplete(() => (completed = true));
    channel.subscribe({ next: (item) => void events.push(item), error: (error) => void events.push(`error: ${(error as Error).message}`) });
    channel.emit('c');
    channel.error(failure);
    expect(events).toEqual(['a', 'b', 'c', 'error: model unavailable']);
    expect(completed).toBe(false);
    expect(channel.metrics()).toMatchObject({ errored: true, completed: false, closed: false, emitted: 3, delivered: 3, subscriberCount: 0 });
  });

  it('an onComplete handler registered while the channel errors, or after, never runs', () => {
    const channel = StreamingChannel.create<string>();
    const ran: string[] = [];
    channel.emit('a');
    channel.error(failure);
    channel.onComplete(() => void ran.push('while erroring'));
    channel.subscribe(() => undefined);
    channel.onComplete(() => void ran.push('after the error'));
    expect(channel.metrics()).toMatchObject({ errored: true, completed: false, delivered: 1 });
    expect(ran).toEqual([]);
  });

  it('waits for a pending handler and the items behind it before the error', async () => {
    const channel = StreamingChannel.create<number>();
    const events: string[] = [];
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    channel.subscribe({
      next: (n) => {
        events.push(`item ${n}`);
        return n === 1 ? slow : undefined;
      },
      error: () => void events.push('error'),
    });
    channel.emitAll([1, 2, 3]);
    channel.error(failure);
    expect(events).toEqual(['item 1']);
    expect(channel.metrics()).toMatchObject({ errored: true, bufferUsed: 2 });
    release();
    await slow;
    await Promise.resolve();
    expect(events).toEqual(['item 1', 'item 2', 'item 3', 'error']);
  });

  it('a subscriber with its own buffer receives what is in it, then the error', async () => {
    const channel = StreamingChannel.create<number>();
    const events: string[] = [];
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    channel.subscribe(
      { next: (n) => (events.push(`item ${n}`), n === 1 ? slow : undefined), error: () => void events.push('error') },
      { bufferSize: 4, backpressure: BackpressureStrategy.DROP_NEWEST },
    );
    channel.emitAll([1, 2, 3]);
    channel.error(failure);
    expect(channel.metrics()).toMatchObject({ delivered: 3, bufferUsed: 0, errored: true });
    expect(events).toEqual(['item 1']);
    release();
    await slow;
    await Promise.resolve();
    expect(events).toEqual(['item 1', 'item 2', 'item 3', 'error']);
  });

  it('refuses later emits and offers with ChannelClosedError in state errored, whose cause is the error', async () => {
    const channel = StreamingChannel.create<string>({ id: 'answers' });
    channel.error(failure);
    let thrown: unknown;
    try {
      channel.emit('late');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ChannelClosedError);
    expect(thrown).toMatchObject({ channelId: 'answers', state: 'errored', cause: failure, message: 'Channel "answers" is errored; it accepts no more items' });
    await expect(channel.offer('late')).rejects.toMatchObject({ state: 'errored', cause: failure });
    expect(channel.metrics()).toMatchObject({ emitted: 0, dropped: 0 });
  });

  it('rejects offers parked under BLOCK with ChannelClosedError and still delivers the buffer', async () => {
    const channel = StreamingChannel.create<string>({ bufferSize: 1, backpressure: BackpressureStrategy.BLOCK });
    channel.emit('buffered');
    const parked = channel.offer('parked');
    const parked$: unknown[] = [];
    channel.offer$('parked$').subscribe({ next: (accepted) => parked$.push(accepted), error: (error) => parked$.push(error) });
    channel.emit('parked by emit');
    expect(channel.metrics().pendingOffers).toBe(3);
    channel.error(failure);
    await expect(parked).rejects.toBeInstanceOf(ChannelClosedError);
    await expect(parked).rejects.toMatchObject({ state: 'errored', cause: failure });
    expect(parked$).toHaveLength(1);
    expect(parked$[0]).toMatchObject({ state: 'errored', cause: failure });
    expect(channel.metrics()).toMatchObject({ emitted: 4, dropped: 3, pendingOffers: 0, bufferUsed: 1 });
    const events: string[] = [];
    channel.subscribe({ next: (item) => void events.push(item), error: () => void events.push('error') });
    expect(events).toEqual(['buffered', 'error']);
  });

  it('a subscriber that throws in its error callback is reported to onError; the others still get the error', () => {
    const channel = StreamingChannel.create<string>();
    const reported: unknown[] = [];
    channel.onError((error) => reported.push(error));
    const callbackFailure = new Error('error callback broke');
    const seen: unknown[] = [];
    channel.subscribe({
      error: () => {
        throw callbackFailure;
      },
    });
    channel.subscribe({ error: (error) => void seen.push(error) });
    channel.error(failure);
    expect(reported).toEqual([callbackFailure]);
    expect(seen).toEqual([failure]);
  });

  it('a subscriber without an error callback just ends', () => {
    const channel = StreamingChannel.create<string>();
    const reported: unknown[] = [];
    channel.onError((error) => reported.push(error));
    const seen: string[] = [];
    const subscription = channel.subscribe((item) => void seen.push(item));
    channel.emit('a');
    channel.error(failure);
    expect(seen).toEqual(['a']);
    expect(reported).toEqual([]);
    expect(channel.metrics().subscriberCount).toBe(0);
    subscription.unsubscribe();
  });

  it('subscribing after the error errors at once', () => {
    const channel = StreamingChannel.create<string>();
    channel.error(failure);
    const seen: unknown[] = [];
    channel.subscribe({ next: () => void seen.push('item'), error: (error) => void seen.push(error), complete: () => void seen.push('complete') });
    expect(seen).toEqual([failure]);
  });

  it('a subscriber arriving after the error whose error callback throws is reported to onError, not thrown at subscribe', () => {
    const channel = StreamingChannel.create<string>();
    const reported: unknown[] = [];
    channel.onError((error) => reported.push(error));
    channel.error(failure);
    const callbackFailure = new Error('late error callback broke');
    expect(() =>
      channel.subscribe({
        error: () => {
          throw callbackFailure;
        },
      }),
    ).not.toThrow();
    expect(reported).toEqual([callbackFailure]);
  });

  it('called from a subscriber during delivery, still delivers the items buffered behind the current one', () => {
    const channel = StreamingChannel.create<number>();
    channel.emitAll([1, 2, 3]);
    const events: unknown[] = [];
    channel.subscribe({
      next: (n) => {
        events.push(n);
        if (n === 1) channel.error(failure);
      },
      error: (error) => void events.push(error),
    });
    expect(events).toEqual([1, 2, 3, failure]);
  });

  it('with a dispatchScheduler, delivers the buffer and the error on that scheduler (marbles)', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const channel = StreamingChannel.create<string>({ dispatchScheduler: scheduler, scheduler });
      scheduler.schedule(() => {
        channel.emitAll(['a', 'b']);
        channel.error(failure);
      }, 2);
      expectObservable(channel.asObservable()).toBe('--(ab#)', undefined, failure);
    });
  });

  it('is ignored once the channel is completing, completed or closed, and complete() and close() are ignored after it', () => {
    const completing = StreamingChannel.create<string>();
    completing.emit('a');
    completing.complete();
    completing.error(failure);
    expect(completing.metrics()).toMatchObject({ completed: true, errored: false });

    const closed = StreamingChannel.create<string>();
    closed.close();
    closed.error(failure);
    expect(closed.metrics()).toMatchObject({ closed: true, errored: false });

    const errored = StreamingChannel.create<string>();
    const events: string[] = [];
    errored.subscribe({ error: () => void events.push('error'), complete: () => void events.push('complete') });
    errored.error(failure);
    errored.complete();
    errored.close();
    errored.error(new Error('second'));
    expect(events).toEqual(['error']);
    expect(errored.metrics()).toMatchObject({ errored: true, completed: false, closed: false });
  });

  it('from(channel) emits the buffered items, then errors (marbles)', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const channel = StreamingChannel.create<string>();
      cold('a-b-#', undefined, failure).subscribe({ next: (item) => channel.emit(item), error: (error: unknown) => channel.error(error) });
      expectObservable(from(channel)).toBe('a-b-#', undefined, failure);
    });
  });

  it('for await yields the buffered items, then throws the error', async () => {
    const channel = StreamingChannel.create<string>();
    channel.emitAll(['a', 'b']);
    channel.error(failure);
    const seen: string[] = [];
    const loop = (async () => {
      for await (const item of channel) seen.push(item);
    })();
    await expect(loop).rejects.toBe(failure);
    expect(seen).toEqual(['a', 'b']);
  });

  it('a ReadableStream reader reads the buffered items, then read() rejects with the error', async () => {
    const channel = StreamingChannel.create<string>();
    const reader = channel.toReadableStream().getReader();
    channel.emitAll(['a', 'b', 'c']);
    channel.error(failure);
    expect(await reader.read()).toEqual({ value: 'a', done: false });
    expect(await reader.read()).toEqual({ value: 'b', done: false });
    expect(await reader.read()).toEqual({ value: 'c', done: false });
    await expect(reader.read()).rejects.toBe(failure);
  });

  it('passes to derived channels after their items', () => {
    const channel = StreamingChannel.create<number>();
    const doubled = channel.map((n) => n * 2).filter((n) => n > 2);
    const events: unknown[] = [];
    doubled.subscribe({ next: (n) => void events.push(n), error: (error) => void events.push(error) });
    channel.emitAll([1, 2, 3]);
    channel.error(failure);
    expect(events).toEqual([4, 6, failure]);
    expect(doubled.metrics().errored).toBe(true);
  });

  it('metrics$ ends with the errored snapshot', () => {
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const channel = StreamingChannel.create<string>({ metricsSampleTime: Infinity, scheduler });
      const errored$ = channel.metrics$.pipe(map((metrics) => metrics.errored));
      scheduler.schedule(() => channel.error(failure), 3);
      expectObservable(errored$).toBe('f--(t|)', { f: false, t: true });
    });
  });
});
