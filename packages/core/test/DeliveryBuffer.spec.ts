import { ConfigError, DeliveryBuffer } from '../src';

const delta = (callId: string, text: string, at = 0) => ({ type: 'text-delta' as const, runId: 'r', callId, parentCallId: null, at, agentId: 'a', delta: text });
const callEnd = (callId: string) => ({ type: 'call-end' as const, runId: 'r', callId, parentCallId: null, at: 0, agentId: 'a', durationMs: 0 });

describe('DeliveryBuffer', () => {
  it('refuses a bad size or delivery with a ConfigError naming it', () => {
    expect(() => new DeliveryBuffer(0, 'pace')).toThrow(ConfigError);
    expect(() => new DeliveryBuffer(1.5, 'pace')).toThrow(/bufferSize/);
    expect(() => new DeliveryBuffer(4, 'drop' as never)).toThrow(/delivery/);
  });

  describe('pace', () => {
    it('keeps every value and gates the source while full; a read frees room', async () => {
      const buffer = new DeliveryBuffer<number>(2, 'pace');
      buffer.push(1);
      expect(buffer.gate()).toBeUndefined();
      buffer.push(2);
      const gate = buffer.gate();
      expect(gate).toBeDefined();
      expect(buffer.gate()).toBe(gate);
      let opened = false;
      void Promise.resolve(gate).then(() => (opened = true));
      buffer.push(3); // a source that cannot wait (a pushing Observable) still loses nothing
      await expect(buffer.next()).resolves.toBe(1);
      await Promise.resolve();
      expect(opened).toBe(false); // two still wait: still full
      await expect(buffer.next()).resolves.toBe(2);
      await Promise.resolve();
      expect(opened).toBe(true);
      buffer.end();
      await expect(buffer.take()).resolves.toEqual([3]);
      await expect(buffer.next()).resolves.toBeUndefined();
      await expect(buffer.take()).resolves.toBeUndefined();
    });

    it('a reader waiting on an empty buffer gets the next value pushed', async () => {
      const buffer = new DeliveryBuffer<string>(4, 'pace');
      const read = buffer.take();
      buffer.push('a');
      await expect(read).resolves.toEqual(['a']);
    });

    it('wakes every waiting reader; each value goes to one of them', async () => {
      const buffer = new DeliveryBuffer<string>(4, 'pace');
      const first = buffer.next();
      const second = buffer.next();
      buffer.push('a');
      buffer.push('b');
      expect([await first, await second].sort()).toEqual(['a', 'b']);
      const third = buffer.take();
      const fourth = buffer.next();
      buffer.end();
      await expect(Promise.all([third, fourth])).resolves.toEqual([undefined, undefined]);
    });

    it('gives the values before an error, then the error', async () => {
      const buffer = new DeliveryBuffer<number>(4, 'pace');
      buffer.push(1);
      buffer.fail(new Error('source broke'));
      await expect(buffer.next()).resolves.toBe(1);
      await expect(buffer.next()).rejects.toThrow('source broke');
    });
  });

  describe('conflate', () => {
    it('merges a call’s deltas while full, with every character and the time of its first piece', async () => {
      const buffer = new DeliveryBuffer<ReturnType<typeof delta> | ReturnType<typeof callEnd>>(1, 'conflate');
      buffer.push(delta('c1', 'a', 1));
      for (let i = 0; i < 3000; i++) buffer.push(delta('c1', 'b', 2 + i));
      expect(buffer.size).toBe(1);
      expect(buffer.gate()).toBeDefined(); // full, though a conflating source never has to wait
      buffer.push(callEnd('c1'));
      buffer.push(delta('c1', 'late', 9999)); // after the call's end: its own entry, not merged back
      const [merged, end, late] = (await buffer.take()) ?? [];
      expect(merged).toEqual({ ...delta('c1', 'a' + 'b'.repeat(3000), 1) });
      expect(end).toEqual(callEnd('c1'));
      expect(late).toEqual(delta('c1', 'late', 9999));
    });

    it('keeps deltas apart while there is room, and other calls’ deltas apart always', async () => {
      const buffer = new DeliveryBuffer<ReturnType<typeof delta>>(2, 'conflate');
      buffer.push(delta('c1', 'x'));
      buffer.push(delta('c2', 'y'));
      buffer.push(delta('c1', 'z'));
      buffer.push(delta('c2', 'w'));
      await expect(buffer.take()).resolves.toEqual([delta('c1', 'xz'), delta('c2', 'yw')]);
    });

    it('merges while full without taking times back: with calls interleaved, every `at` the reader sees is in order', async () => {
      const buffer = new DeliveryBuffer<ReturnType<typeof delta> | ReturnType<typeof callEnd>>(2, 'conflate');
      let at = 0;
      for (let i = 0; i < 10; i++) {
        buffer.push(delta('c1', `a${i} `, at++));
        buffer.push(delta('c2', `b${i} `, at++));
      }
      const read = (await buffer.take()) ?? [];
      expect(read.map((event) => event.at)).toEqual([0, 1]);
      expect(read.map((event) => (event.type === 'text-delta' ? event.delta : '')).join('|')).toBe(
        `${Array.from({ length: 10 }, (_, i) => `a${i} `).join('')}|${Array.from({ length: 10 }, (_, i) => `b${i} `).join('')}`,
      );
    });

    it('replaces the latest waiting plain value while full, and never a run event', async () => {
      const buffer = new DeliveryBuffer<unknown>(2, 'conflate');
      buffer.push(callEnd('c1'));
      buffer.push({ progress: 0.1 });
      buffer.push({ progress: 0.2 });
      buffer.push({ progress: 0.3 });
      await expect(buffer.take()).resolves.toEqual([callEnd('c1'), { progress: 0.3 }]);
      buffer.push(callEnd('c2'));
      buffer.push(callEnd('c3'));
      buffer.push({ progress: 1 });
      await expect(buffer.take()).resolves.toEqual([callEnd('c2'), callEnd('c3'), { progress: 1 }]);
    });
  });
});
