import { config, Subject } from 'rxjs';
import { BackpressureStrategy, BufferOverflowError, StreamingChannel } from '@rxagents/streaming';

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}
const flushMicrotasks = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('per-subscriber buffers', () => {
  afterEach(() => {
    config.onUnhandledError = null;
  });

  it('a slow UI subscriber drops oldest while a persistence subscriber loses nothing', async () => {
    const channel = StreamingChannel.create<number>({ bufferSize: 256, backpressure: BackpressureStrategy.BLOCK });
    const uiGate = gate();
    const rendered: number[] = [];
    const saved: number[] = [];
    channel.subscribe((n) => (rendered.push(n), n === 0 ? uiGate.promise : undefined), { bufferSize: 3, backpressure: BackpressureStrategy.DROP_OLDEST });
    channel.subscribe(async (n) => void saved.push(n), { bufferSize: 1024, backpressure: BackpressureStrategy.BLOCK });
    for (let i = 0; i < 100; i++) await channel.offer(i);
    channel.complete();
    await flushMicrotasks();
    expect(saved).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(rendered).toEqual([0]);
    uiGate.open();
    await flushMicrotasks();
    expect(rendered).toEqual([0, 97, 98, 99]);
    expect(channel.metrics()).toMatchObject({ emitted: 100, delivered: 100, dropped: 0, subscriberDropped: 96 });
  });

  it('a DROP_* subscriber buffer never holds the channel back', () => {
    const channel = StreamingChannel.create<number>({ bufferSize: 2 });
    const stuck = gate();
    const fast: number[] = [];
    channel.subscribe(() => stuck.promise, { bufferSize: 1, backpressure: BackpressureStrategy.DROP_NEWEST });
    channel.subscribe((n) => void fast.push(n));
    channel.emitAll([1, 2, 3, 4, 5]);
    expect(fast).toEqual([1, 2, 3, 4, 5]);
    expect(channel.metrics()).toMatchObject({ dropped: 0, subscriberDropped: 3 });
  });

  it('a BLOCK subscriber buffer holds the channel back only while it is full', async () => {
    const channel = StreamingChannel.create<number>({ bufferSize: 10 });
    const first = gate();
    const slow: number[] = [];
    const fast: number[] = [];
    channel.subscribe((n) => (slow.push(n), n === 1 ? first.promise : undefined), { bufferSize: 2, backpressure: BackpressureStrategy.BLOCK });
    channel.subscribe((n) => void fast.push(n));
    channel.emitAll([1, 2, 3, 4, 5]);
    expect(fast).toEqual([1, 2, 3]);
    expect(channel.metrics().bufferUsed).toBe(2);
    first.open();
    await flushMicrotasks();
    expect(slow).toEqual([1, 2, 3, 4, 5]);
    expect(fast).toEqual([1, 2, 3, 4, 5]);
  });

  it('an ERROR subscriber buffer fails that subscription with BufferOverflowError; the others go on', () => {
    const channel = StreamingChannel.create<number>({ id: 'ui' });
    const stuck = gate();
    const errors: unknown[] = [];
    const fast: number[] = [];
    channel.subscribe({ next: () => stuck.promise, error: (error) => errors.push(error) }, { bufferSize: 1, backpressure: BackpressureStrategy.ERROR });
    channel.subscribe((n) => void fast.push(n));
    channel.emitAll([1, 2, 3, 4]);
    expect(errors).toEqual([new BufferOverflowError('ui', 1, 'a subscriber buffer')]);
    expect(fast).toEqual([1, 2, 3, 4]);
    expect(channel.metrics().subscriberCount).toBe(1);
  });

  it('a failed ERROR subscriber buffer counts the items it still held as dropped: they never reach the subscriber', () => {
    const channel = StreamingChannel.create<number>();
    const stuck = gate();
    const seen: number[] = [];
    channel.subscribe({ next: (n) => (seen.push(n), stuck.promise), error: () => undefined }, { bufferSize: 2, backpressure: BackpressureStrategy.ERROR });
    channel.emitAll([1, 2, 3, 4]);
    // 1 is being handled, 2 and 3 wait in the subscriber's buffer, 4 overflows it and fails the subscription.
    expect(seen).toEqual([1]);
    expect(channel.metrics()).toMatchObject({ delivered: 4, subscriberCount: 0, subscriberDropped: 3 });
  });

  it('own buffers default to the channel bufferSize and strategy', () => {
    const channel = StreamingChannel.create<number>({ bufferSize: 2, backpressure: BackpressureStrategy.DROP_NEWEST });
    const stuck = gate();
    channel.subscribe(() => stuck.promise, { backpressure: BackpressureStrategy.DROP_OLDEST });
    channel.subscribe(() => stuck.promise, { bufferSize: 1 });
    channel.emitAll([1, 2, 3, 4]);
    expect(channel.metrics()).toMatchObject({ delivered: 4, subscriberDropped: 1 + 2 });
  });

  it('unsubscribing a buffered subscriber that is still draining after complete() stops it and cancels its handler', async () => {
    const channel = StreamingChannel.create<number>();
    const handler = new Subject<void>();
    const seen: number[] = [];
    const subscription = channel.subscribe((n) => (seen.push(n), handler), { bufferSize: 5 });
    channel.emitAll([1, 2, 3]);
    channel.complete();
    expect(seen).toEqual([1]);
    subscription.unsubscribe();
    expect(handler.observed).toBe(false);
    handler.complete();
    await flushMicrotasks();
    expect(seen).toEqual([1]);
  });

  it('complete() completes a buffered subscriber after its own buffer is delivered; close() discards it', async () => {
    const channel = StreamingChannel.create<number>();
    const first = gate();
    const events: string[] = [];
    channel.subscribe({ next: (n) => (events.push(`item ${n}`), n === 1 ? first.promise : undefined), complete: () => events.push('complete') }, { bufferSize: 5 });
    channel.emitAll([1, 2, 3]);
    channel.complete();
    expect(events).toEqual(['item 1']);
    first.open();
    await flushMicrotasks();
    expect(events).toEqual(['item 1', 'item 2', 'item 3', 'complete']);

    const closing = StreamingChannel.create<number>();
    const stuck = gate();
    const seen: string[] = [];
    closing.subscribe({ next: (n) => (seen.push(`item ${n}`), stuck.promise), complete: () => seen.push('complete') }, { bufferSize: 5 });
    closing.emitAll([1, 2, 3]);
    closing.close();
    stuck.open();
    await flushMicrotasks();
    expect(seen).toEqual(['item 1', 'complete']);
    expect(closing.metrics().subscriberDropped).toBe(2);
  });
});
