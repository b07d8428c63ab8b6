import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { of, Subject } from 'rxjs';
import { ConfigError, MAX_COUNT } from '@rxagents/core';
import { AgentStreamBridge, backpressure, BackpressureStrategy, StreamingChannel, toChannel, type ToChannelOptions } from '@rxagents/streaming';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

describe('streaming options: bounded counts, strict objects, non-blank ids', () => {
  it('a large bufferSize costs memory only for what the buffer holds', () => {
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    const channel = StreamingChannel.create<number>({ bufferSize: 10_000_000 });
    collectGarbage();
    const grown = (process.memoryUsage().heapUsed - before) / 1e6;
    expect(grown).toBeLessThan(8);
    expect(channel.metrics().bufferCapacity).toBe(10_000_000);
  });

  it('a buffer that grows past its first slots, wrapped around, keeps order and its bound', () => {
    const channel = StreamingChannel.create<number>({ bufferSize: 3_000, backpressure: BackpressureStrategy.DROP_NEWEST });
    const gates: Subject<void>[] = [];
    const seen: number[] = [];
    channel.subscribe((n) => {
      seen.push(n);
      const gate = new Subject<void>();
      gates.push(gate);
      return gate;
    });
    let next = 0;
    for (; next < 1_025; next++) channel.emit(next);
    for (let i = 0; i < 10; i++) gates.shift()?.complete();
    for (let i = 0; i < 2_500; i++) channel.emit(next++);
    expect(channel.metrics()).toMatchObject({ bufferUsed: 3_000, dropped: 1_025 + 2_500 - 11 - 3_000 });
    while (gates.length > 0) gates.shift()?.complete();
    expect(seen).toHaveLength(3_011);
    expect(seen.every((n, i) => n === i)).toBe(true);
  });

  it('bufferSize 2**32 is a ConfigError for a channel, a subscriber buffer, a bridge channel and the operator', () => {
    expect(() => StreamingChannel.create({ bufferSize: 2 ** 32 })).toThrow(ConfigError);
    expect(() => StreamingChannel.create({ bufferSize: 2 ** 32 })).toThrow(`bufferSize must be a positive integer of at most ${MAX_COUNT}`);
    expect(() => StreamingChannel.create<number>().subscribe(() => undefined, { bufferSize: 2 ** 32 })).toThrow(ConfigError);
    expect(() => StreamingChannel.create<number>().asObservable({ bufferSize: 2 ** 32 })).toThrow(ConfigError);
    expect(() => new AgentStreamBridge().createChannel('a', 2 ** 32, BackpressureStrategy.BLOCK)).toThrow(ConfigError);
    expect(() => new AgentStreamBridge().createChannel('a', { bufferSize: 2 ** 32 })).toThrow(ConfigError);
    expect(() => backpressure(of, { bufferSize: 2 ** 32 })).toThrow(ConfigError);
    expect(() => backpressure(of, { concurrency: 2 ** 32 })).toThrow(ConfigError);
    expect(() => StreamingChannel.create({ maxPendingOffers: 2 ** 32 })).toThrow(ConfigError);
  });

  it('the largest accepted counts work', () => {
    const channel = StreamingChannel.create<number>({ bufferSize: MAX_COUNT, maxPendingOffers: MAX_COUNT });
    channel.emitAll([1, 2, 3]);
    const seen: number[] = [];
    channel.subscribe((n) => void seen.push(n), { bufferSize: MAX_COUNT });
    expect(seen).toEqual([1, 2, 3]);
    expect(channel.metrics().bufferCapacity).toBe(MAX_COUNT);
  });

  it('a blank id or bridge name is a ConfigError and leaves the bridge unchanged', () => {
    expect(() => StreamingChannel.create({ id: '   ' })).toThrow('StreamingChannel options: id must be a non-blank string');
    expect(() => StreamingChannel.builder().id('\t').build()).toThrow(ConfigError);
    const bridge = new AgentStreamBridge();
    expect(() => bridge.createChannel(' ')).toThrow(ConfigError);
    expect(bridge.names()).toEqual([]);
  });

  it('a bridge refuses an id among channel options (the name is the id) and options that are not an object', () => {
    const bridge = new AgentStreamBridge();
    expect(() => bridge.createChannel('a', { id: 'b' } as never)).toThrow(/id is not a known option/);
    expect(() => bridge.createChannel('a', 'big' as never)).toThrow(ConfigError);
    expect(bridge.names()).toEqual([]);
  });

  it('toChannel options are strict and checked', () => {
    const channel = StreamingChannel.create<number>();
    expect(() => toChannel(channel, { complet: true } as ToChannelOptions)).toThrow(/complet is not a known option \(did you mean complete\?\)/);
    expect(() => toChannel(channel, { complete: 'yes' } as never)).toThrow(/complete must be a boolean/);
  });

  it('a subscriber that is neither a function nor an observer object is a ConfigError', () => {
    const channel = StreamingChannel.create<number>();
    expect(() => channel.subscribe(null as never)).toThrow(ConfigError);
    expect(() => channel.subscribe(42 as never)).toThrow(ConfigError);
    expect(channel.metrics().subscriberCount).toBe(0);
  });

  it('the backpressure project and the toChannel channel are checked when the operator is created', () => {
    expect(() => backpressure('not a function' as never)).toThrow('backpressure: project must be a function');
    expect(() => toChannel({} as never)).toThrow('toChannel: channel must be a StreamingChannel (with offer$())');
  });

  it('map, filter, onError and onComplete refuse a callback that is not a function', () => {
    const channel = StreamingChannel.create<number>();
    expect(() => channel.map(undefined as never)).toThrow('StreamingChannel.map: fn must be a function');
    expect(() => channel.filter(1 as never)).toThrow('StreamingChannel.filter: predicate must be a function');
    expect(() => channel.onError(null as never)).toThrow(ConfigError);
    expect(() => channel.onComplete('done' as never)).toThrow(ConfigError);
    expect(channel.metrics().subscriberCount).toBe(0);
  });
});
