import { z } from 'zod';
import { AgentStreamBridge, BackpressureStrategy, ChannelItemError, DuplicateChannelError, UnknownChannelError } from '@rxagents/streaming';

describe('AgentStreamBridge', () => {
  it('creates named channels with 256 / DROP_OLDEST by default and finds them by name', () => {
    const bridge = new AgentStreamBridge();
    const results = bridge.createChannel<string>('analysis-results');
    expect(results.id).toBe('analysis-results');
    expect(results.metrics().bufferCapacity).toBe(256);
    const seen: string[] = [];
    bridge.subscribe<string>('analysis-results', (chunk) => void seen.push(chunk));
    results.emit('partial result');
    expect(seen).toEqual(['partial result']);
    expect(bridge.getChannel<string>('analysis-results')).toBe(results);
    expect(bridge.getChannel('missing')).toBeUndefined();
    expect(bridge.names()).toEqual(['analysis-results']);
  });

  it('takes a buffer size and strategy, or channel options', () => {
    const bridge = new AgentStreamBridge();
    const small = bridge.createChannel<number>('small', 2, BackpressureStrategy.DROP_NEWEST);
    expect(small.emitAll([1, 2, 3])).toBe(2);
    const custom = bridge.createChannel<number>('custom', { bufferSize: 8, backpressure: BackpressureStrategy.BLOCK });
    expect(custom.metrics().bufferCapacity).toBe(8);
  });

  it('throws DuplicateChannelError for a taken name and UnknownChannelError when subscribing to a missing one', () => {
    const bridge = new AgentStreamBridge();
    bridge.createChannel('a');
    expect(() => bridge.createChannel('a')).toThrow(DuplicateChannelError);
    expect(() => bridge.subscribe('b', () => undefined)).toThrow(UnknownChannelError);
    expect(() => bridge.subscribe('b', () => undefined)).toThrow('No channel named "b" (known: a)');
  });

  it('rejects items that fail the schema at emit with ChannelItemError; nothing is delivered', () => {
    const bridge = new AgentStreamBridge();
    const scores = bridge.createChannel('scores', { schema: z.object({ agent: z.string(), score: z.number().min(0) }) });
    const seen: unknown[] = [];
    scores.subscribe((item) => void seen.push(item.score));
    scores.emit({ agent: 'critic', score: 3 });
    expect(() => scores.emit({ agent: 'critic', score: -1 })).toThrow(ChannelItemError);
    expect(() => scores.emit({ agent: 'critic', score: -1 })).toThrow(/rejected item .*score: Too small/);
    expect(() => scores.emit('nonsense' as never)).toThrow(ChannelItemError);
    expect(seen).toEqual([3]);
    expect(scores.metrics()).toMatchObject({ emitted: 1, delivered: 1 });
  });

  it('removeChannel and close close the channels they remove', () => {
    const bridge = new AgentStreamBridge();
    const a = bridge.createChannel('a');
    const b = bridge.createChannel('b');
    expect(bridge.removeChannel('a')).toBe(true);
    expect(bridge.removeChannel('a')).toBe(false);
    expect(a.metrics().closed).toBe(true);
    bridge.close();
    expect(b.metrics().closed).toBe(true);
    expect(bridge.names()).toEqual([]);
    expect(bridge.createChannel('a').id).toBe('a');
  });

  it('any name works, __proto__ and constructor included (names are Map keys, never object keys)', () => {
    const bridge = new AgentStreamBridge();
    const proto = bridge.createChannel<string>('__proto__');
    const ctor = bridge.createChannel<string>('constructor');
    expect(bridge.getChannel('__proto__')).toBe(proto);
    expect(bridge.getChannel('constructor')).toBe(ctor);
    expect(bridge.getChannel('toString')).toBeUndefined();
    expect(bridge.names()).toEqual(['__proto__', 'constructor']);
    expect(() => bridge.subscribe('hasOwnProperty', () => undefined)).toThrow(UnknownChannelError);
  });
});
