import { ConfigError, defineAgent, runEventStream, type RunEvent } from '@rxagents/core';
import { Patterns } from '@rxagents/patterns';

describe('a pattern read by a slow reader (runEventStream)', () => {
  it('pace: a debate waits for its reader before each turn, and every event arrives', async () => {
    const started: string[] = [];
    const debater = (id: string) => defineAgent(id, async () => (started.push(id), `${id} speaks`));
    const debate = Patterns.debate({ agents: [debater('pro'), debater('con')], maxRounds: 2 });
    const stream = runEventStream((pace) => debate.events$('Ship?', { pace }), { bufferSize: 1 });
    const reader = stream.getReader();
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    // run-start fills the buffer of one: no turn has started while nobody reads.
    expect(started).toEqual([]);
    reader.releaseLock();
    const events: RunEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(started).toEqual(['pro', 'con', 'pro', 'con']);
    expect(events.filter((event) => event.type === 'message')).toHaveLength(4);
    expect(events.at(-1)).toMatchObject({ type: 'run-end', success: true });
  });

  it('refuses an unknown events$ option', () => {
    const debate = Patterns.debate({ agents: [defineAgent('a', async () => 'x'), defineAgent('b', async () => 'y')], maxRounds: 1 });
    expect(() => debate.events$('x', { pase: () => undefined } as never)).toThrow(ConfigError);
    expect(() => debate.events$('x', { pase: () => undefined } as never)).toThrow('events$ options: pase is not a known option (did you mean pace?)');
  });
});
