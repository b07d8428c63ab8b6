import { BackpressureStrategy, StreamingChannel } from '@rxagents/streaming';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((res) => (resolve = res));
  return { promise, resolve };
}

const flushMicrotasks = () => new Promise<void>((resolve) => setImmediate(resolve));

const blocking = <T>(bufferSize: number) => StreamingChannel.create<T>({ bufferSize, backpressure: BackpressureStrategy.BLOCK });

describe('StreamingChannel hot path (direct hand-over when the channel is idle)', () => {
  it('offer on an idle channel hands the item over before it returns, bypassing the buffer, and resolves true', async () => {
    const channel = blocking<number>(2);
    const seen: number[] = [];
    channel.subscribe((n) => void seen.push(n));
    const accepted = channel.offer(1);
    expect(seen).toEqual([1]);
    expect(channel.metrics()).toMatchObject({ emitted: 1, delivered: 1, bufferUsed: 0, pendingOffers: 0 });
    await expect(accepted).resolves.toBe(true);
  });

  it('awaited offers into an async subscriber arrive in order, one at a time, and all resolve true', async () => {
    const channel = blocking<number>(4);
    const seen: number[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    channel.subscribe(async (n) => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      seen.push(n);
      await Promise.resolve();
      inFlight -= 1;
    });
    const results: boolean[] = [];
    for (let i = 0; i < 1000; i++) results.push(await channel.offer(i));
    const done = new Promise<void>((resolve) => channel.onComplete(resolve));
    channel.complete();
    await done;
    expect(seen).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    expect(results.every((accepted) => accepted)).toBe(true);
    expect(maxInFlight).toBe(1);
    expect(channel.metrics()).toMatchObject({ emitted: 1000, delivered: 1000, dropped: 0, completed: true });
  });

  it('offers made while a subscriber is pending go to the buffer, then park, and are delivered in order', async () => {
    const channel = blocking<number>(2);
    const gate = deferred();
    const seen: number[] = [];
    channel.subscribe((n) => {
      seen.push(n);
      return n === 0 ? gate.promise : undefined;
    });
    const offers = [0, 1, 2, 3, 4].map((n) => channel.offer(n));
    expect(seen).toEqual([0]);
    expect(channel.metrics()).toMatchObject({ bufferUsed: 2, pendingOffers: 2 });
    gate.resolve();
    await flushMicrotasks();
    expect(seen).toEqual([0, 1, 2, 3, 4]);
    await expect(Promise.all(offers)).resolves.toEqual([true, true, true, true, true]);
    expect(channel.metrics()).toMatchObject({ bufferUsed: 0, pendingOffers: 0, delivered: 5 });
  });

  it('an offer made by a subscriber during a hand-over is delivered after the current item reached every subscriber', async () => {
    const channel = blocking<string>(4);
    const log: string[] = [];
    const inner: Promise<boolean>[] = [];
    channel.subscribe((item) => {
      log.push(`A:${item}`);
      if (item === 'x') inner.push(channel.offer('y'));
    });
    channel.subscribe((item) => void log.push(`B:${item}`));
    await expect(channel.offer('x')).resolves.toBe(true);
    expect(log).toEqual(['A:x', 'B:x', 'A:y', 'B:y']);
    await expect(Promise.all(inner)).resolves.toEqual([true]);
  });

  it.each([
    ['emit', (channel: StreamingChannel<number>) => void channel.emit(1)],
    ['offer', (channel: StreamingChannel<number>) => void channel.offer(1)],
  ])('a subscriber that completes the channel during a hand-over by %s finishes it', (_name, send) => {
    const channel = StreamingChannel.create<number>({ bufferSize: 4 });
    const log: string[] = [];
    channel.onComplete(() => log.push('onComplete'));
    channel.subscribe({
      next: (n) => {
        log.push(`next:${n}`);
        channel.complete();
      },
      complete: () => log.push('complete'),
    });
    send(channel);
    expect(log).toEqual(['next:1', 'onComplete', 'complete']);
    expect(channel.metrics()).toMatchObject({ completed: true, delivered: 1 });
  });

  it('a subscriber that completes the channel during a hand-over still waits for another pending subscriber', async () => {
    const channel = StreamingChannel.create<number>({ bufferSize: 4 });
    const gate = deferred();
    const log: string[] = [];
    channel.onComplete(() => log.push('onComplete'));
    channel.subscribe(() => gate.promise);
    channel.subscribe(() => {
      log.push('next');
      channel.complete();
    });
    channel.emit(1);
    expect(log).toEqual(['next']);
    gate.resolve();
    await flushMicrotasks();
    expect(log).toEqual(['next', 'onComplete']);
  });
});
