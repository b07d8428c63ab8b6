import { ConfigError, defineAgent, runEventStream, type RunEvent } from '@rxagents/core';
import { DefaultHandoff, HandoffChain, HandoffContext } from '@rxagents/handoff';

describe('a chain read by a slow reader (runEventStream)', () => {
  it('pace: the next hop waits for the reader, and every event arrives', async () => {
    const started: string[] = [];
    const agent = (id: string) => defineAgent(id, async () => (started.push(id), `${id} done`));
    const chain = HandoffChain.builder().add(agent('intake')).add(agent('billing')).build();
    const stream = runEventStream((pace) => chain.events$(new DefaultHandoff(), HandoffContext.of('t-1', {}), { pace }), { bufferSize: 1 });
    const reader = stream.getReader();
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([]);
    reader.releaseLock();
    const events: RunEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(started).toEqual(['billing']);
    expect(events.filter((event) => event.type === 'handoff').map((event) => (event.type === 'handoff' ? event.to : ''))).toEqual(['billing']);
    expect(events.at(-1)).toMatchObject({ type: 'run-end', success: true });
  });

  it('refuses a pace that is not a function', () => {
    const chain = HandoffChain.builder().add(defineAgent('a', async () => 'x')).build();
    expect(() => chain.events$(new DefaultHandoff(), HandoffContext.of('t', {}), { pace: 5 as never })).toThrow(ConfigError);
  });
});
