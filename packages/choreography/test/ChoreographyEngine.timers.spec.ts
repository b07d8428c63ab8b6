import { ConfigError, MAX_DELAY_MS } from '@rxagents/core';
import { ChoreographyEngine, ChoreographySpec } from '@rxagents/choreography';
import { hangingAgent, scriptedAgent } from '@rxagents/testing';
import { TestScheduler } from 'rxjs/testing';

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const silent = { warn: () => undefined };
const oneStep = (timeout?: number) =>
  ChoreographySpec.builder('one')
    .initialEvent('go')
    .interaction({ id: 'only', source: 's', target: 'a', trigger: 'go', emits: null, task: 'Answer', ...(timeout === undefined ? {} : { timeout }) })
    .build();
const timeoutRule = `must be a number of milliseconds greater than 0 and at most ${MAX_DELAY_MS} (about 24.8 days), or Infinity for no timeout`;

describe('ChoreographyEngine: the run timeout', () => {
  it.each([2 ** 31, 30 * 24 * 3_600_000])('refuses timeout %p ms with a ConfigError (the platform cannot wait that long)', (timeout) => {
    expect(() => ChoreographyEngine.builder().spec(oneStep()).agent('a', scriptedAgent('a', 'x')).timeout(timeout).build()).toThrow(
      `ChoreographyEngine options: timeout ${timeoutRule}, got ${timeout}`,
    );
  });

  it('timeout: Infinity never times the run out: a hanging agent keeps it running, nothing fires', () => {
    newScheduler().run(({ expectObservable, flush }) => {
      const agent = hangingAgent('a');
      const engine = ChoreographyEngine.builder().spec(oneStep()).agent('a', agent).timeout(Infinity).logger(silent).build();
      expectObservable(engine.execute$()).toBe('-');
      expectObservable(engine.steps$).toBe('-');
      flush();
      expect(agent.callCount).toBe(1);
      expect(agent.aborted).toBe(false);
    });
  });

  it('a timeout at the 2^31-1 ms bound fires then, not earlier', () => {
    newScheduler().run(({ expectObservable }) => {
      const engine = ChoreographyEngine.builder().spec(oneStep()).agent('a', hangingAgent('a')).timeout(MAX_DELAY_MS).logger(silent).build();
      expectObservable(engine.execute$()).toBe(`${MAX_DELAY_MS}ms (r|)`, { r: expect.objectContaining({ timedOut: true, failedCount: 1 }) });
    });
  });
});

describe('ChoreographyEngine: an interaction timeout', () => {
  it('refuses 2^31 ms or more with a ConfigError naming the interaction', () => {
    expect(() => oneStep(2 ** 31)).toThrow(ConfigError);
    expect(() => oneStep(2 ** 31)).toThrow(`ChoreographySpec: interactions.0.timeout ${timeoutRule}, got ${2 ** 31}`);
  });

  it('timeout: Infinity means no limit for that agent call', () => {
    newScheduler().run(({ expectObservable }) => {
      const engine = ChoreographyEngine.builder()
        .spec(oneStep(Infinity))
        .agent('a', scriptedAgent('a', { reply: 'slow', delay: MAX_DELAY_MS }))
        .timeout(Infinity)
        .logger(silent)
        .build();
      expectObservable(engine.execute$()).toBe(`${MAX_DELAY_MS}ms (r|)`, { r: expect.objectContaining({ success: true, completedCount: 1 }) });
    });
  });

  it('an Infinity timeout is left out of toJSON (it means the same as none), so the JSON reads back', () => {
    const spec = oneStep(Infinity);
    expect(spec.interactions[0]?.timeout).toBe(Infinity);
    expect(spec.toJSON().interactions[0]).not.toHaveProperty('timeout');
    expect(ChoreographySpec.parse(JSON.stringify(spec)).interactions[0]?.timeout).toBeUndefined();
  });
});
