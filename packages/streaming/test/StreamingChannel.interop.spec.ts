import { firstValueFrom, from, lastValueFrom, take, toArray } from 'rxjs';
import { BackpressureStrategy, StreamingChannel } from '@rxagents/streaming';

const flushMicrotasks = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('StreamingChannel interop', () => {
  it('asObservable() and from(channel) (Symbol.observable) subscribe as channel subscribers', async () => {
    const channel = StreamingChannel.create<string>();
    const viaFrom = lastValueFrom(from(channel).pipe(toArray()));
    const viaAs = lastValueFrom(channel.asObservable().pipe(take(2), toArray()));
    channel.emitAll(['a', 'b', 'c']);
    channel.complete();
    await expect(viaFrom).resolves.toEqual(['a', 'b', 'c']);
    await expect(viaAs).resolves.toEqual(['a', 'b']);
    const key = (typeof Symbol === 'function' && (Symbol as { observable?: symbol }).observable) || '@@observable';
    expect(typeof (channel as unknown as Record<PropertyKey, unknown>)[key]).toBe('function');
  });

  it('take(1) on from(channel) takes one buffered item and leaves the rest for the next subscriber', async () => {
    const channel = StreamingChannel.create<number>();
    channel.emitAll([1, 2, 3]);
    await expect(firstValueFrom(from(channel))).resolves.toBe(1);
    expect(channel.metrics()).toMatchObject({ delivered: 1, bufferUsed: 2, subscriberCount: 0 });
    const rest: number[] = [];
    channel.subscribe((n) => void rest.push(n));
    expect(rest).toEqual([2, 3]);
  });

  it('for await is a pacing subscriber: items wait while the loop body runs', async () => {
    const channel = StreamingChannel.create<number>({ bufferSize: 2 });
    const seen: number[] = [];
    let release!: () => void;
    const firstBody = new Promise<void>((resolve) => (release = resolve));
    const loop = (async () => {
      for await (const n of channel) {
        seen.push(n);
        if (n === 1) await firstBody;
      }
    })();
    channel.emit(1);
    await flushMicrotasks();
    channel.emitAll([2, 3, 4, 5]);
    expect(channel.metrics()).toMatchObject({ bufferUsed: 2, dropped: 2 });
    channel.complete();
    release();
    await loop;
    expect(seen).toEqual([1, 4, 5]);
  });

  it('leaving a for await loop unsubscribes', async () => {
    const channel = StreamingChannel.create<number>();
    channel.emitAll([1, 2, 3]);
    const seen: number[] = [];
    for await (const n of channel) {
      seen.push(n);
      if (n === 2) break;
    }
    expect(seen).toEqual([1, 2]);
    expect(channel.metrics().subscriberCount).toBe(0);
    expect(channel.metrics().bufferUsed).toBe(1);
  });

  it('next() calls made before their items arrive each get one item, in order; the end answers those left', async () => {
    const channel = StreamingChannel.create<number>();
    const iterator = channel.iterate();
    const first = iterator.next();
    const second = iterator.next();
    channel.emitAll([1, 2, 3]);
    await expect(Promise.all([first, second])).resolves.toEqual([
      { value: 1, done: false },
      { value: 2, done: false },
    ]);
    // Two items were asked for; the third waits for the next call, which still paces the channel.
    expect(channel.metrics()).toMatchObject({ delivered: 2, bufferUsed: 1 });
    const third = iterator.next();
    const fourth = iterator.next();
    const fifth = iterator.next();
    channel.emit(4);
    channel.complete();
    await expect(Promise.all([third, fourth, fifth])).resolves.toEqual([
      { value: 3, done: false },
      { value: 4, done: false },
      { value: undefined, done: true },
    ]);
  });

  it('toReadableStream(): the reader pulls pace the channel; cancel unsubscribes', async () => {
    const channel = StreamingChannel.create<number>({ bufferSize: 10, backpressure: BackpressureStrategy.BLOCK });
    const stream = channel.toReadableStream();
    channel.emitAll([1, 2, 3, 4]);
    expect(channel.metrics().bufferUsed).toBe(3);
    const reader = stream.getReader();
    await expect(reader.read()).resolves.toEqual({ value: 1, done: false });
    await flushMicrotasks();
    expect(channel.metrics().bufferUsed).toBe(2);
    await expect(reader.read()).resolves.toEqual({ value: 2, done: false });
    await reader.cancel();
    expect(channel.metrics().subscriberCount).toBe(0);
  });

  it('toReadableStream() closes when the channel completes', async () => {
    const channel = StreamingChannel.create<string>();
    const stream = channel.toReadableStream();
    channel.emitAll(['x', 'y']);
    channel.complete();
    const reader = stream.getReader();
    const items: string[] = [];
    for (let result = await reader.read(); !result.done; result = await reader.read()) items.push(result.value);
    expect(items).toEqual(['x', 'y']);
  });
});
