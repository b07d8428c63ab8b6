import { lastValueFrom, toArray } from 'rxjs';
import { ConfigError } from '@rxagents/core';
import { BackpressureStrategy, StreamingChannel } from '@rxagents/streaming';

const nextMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('StreamingChannel: a buffer per reader', () => {
  it('a stalled for await loop with its own buffer loses items instead of stalling another loop', async () => {
    const channel = StreamingChannel.create<number>({ bufferSize: 2 });
    let release!: () => void;
    const stall = new Promise<void>((resolve) => (release = resolve));
    const stalledSeen: number[] = [];
    const stalled = (async () => {
      for await (const n of channel.iterate({ bufferSize: 2, backpressure: BackpressureStrategy.DROP_NEWEST })) {
        stalledSeen.push(n);
        if (n === 1) await stall;
      }
    })();
    const fastSeen: number[] = [];
    const fast = (async () => {
      for await (const n of channel) fastSeen.push(n);
    })();
    for (let n = 1; n <= 10; n++) {
      await channel.offer(n);
      await nextMacrotask();
    }
    expect(fastSeen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // The stalled loop holds 1 in its body and 2, 3 in its buffer; 4 to 10 were dropped for it alone.
    expect(channel.metrics()).toMatchObject({ emitted: 10, delivered: 10, dropped: 0, subscriberDropped: 7 });
    channel.complete();
    release();
    await Promise.all([stalled, fast]);
    expect(stalledSeen).toEqual([1, 2, 3]);
  });

  it('a ReadableStream nobody reads, given its own buffer, does not hold back the other subscribers', async () => {
    const channel = StreamingChannel.create<number>({ bufferSize: 2 });
    const unread = channel.toReadableStream({ bufferSize: 1, backpressure: BackpressureStrategy.DROP_OLDEST });
    const all = lastValueFrom(channel.asObservable().pipe(toArray()));
    channel.emitAll([1, 2, 3, 4, 5]);
    channel.complete();
    await expect(all).resolves.toEqual([1, 2, 3, 4, 5]);
    expect(channel.metrics()).toMatchObject({ delivered: 5, dropped: 0, subscriberDropped: 3 });
    const reader = unread.getReader();
    const read: number[] = [];
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) read.push(chunk.value);
    // 1 went into the stream's queue, 5 waited in its own buffer (DROP_OLDEST evicted 2, 3 and 4).
    expect(read).toEqual([1, 5]);
  });

  it('a ReadableStream without options still paces the channel', async () => {
    const channel = StreamingChannel.create<number>({ bufferSize: 2 });
    channel.toReadableStream();
    channel.emitAll([1, 2, 3, 4]);
    expect(channel.metrics()).toMatchObject({ delivered: 1, bufferUsed: 2, dropped: 1 });
    await nextMacrotask();
  });

  it('rejects bad reader options at once with a ConfigError naming the field', () => {
    const channel = StreamingChannel.create<number>();
    expect(() => channel.iterate({ bufferSize: 0 })).toThrow(ConfigError);
    expect(() => channel.iterate({ bufferSize: 0 })).toThrow(/bufferSize/);
    expect(() => channel.toReadableStream({ backpressure: 'LATEST' as BackpressureStrategy })).toThrow(/backpressure/);
    expect(channel.metrics().subscriberCount).toBe(0);
  });
});
