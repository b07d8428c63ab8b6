import { defineAgent } from '@rxagents/core';
import type { StreamingChannel } from '@rxagents/streaming';
import { ChannelBackend, ChannelExecutionStrategy, Patterns, TerminationCondition, type AgentResult, type PatternChannel, type PostedMessage } from '@rxagents/patterns';

// Type-checked by `tsc -p tsconfig.json --noEmit`: each `@ts-expect-error` line must fail to compile.
const agents = [defineAgent('pro', async () => 'Ship.'), defineAgent('con', async () => 'Wait.')];

describe("onChannel receives the channel of what the pattern posts, typed", () => {
  it('a debate, a sequence and a supervisor post messages; a vote and parallel work post agent results', async () => {
    const seen: string[] = [];
    await Patterns.debate({ agents, maxRounds: 1 })
      .overChannel({ onChannel: (channel) => channel.subscribe((message) => void seen.push(`${message.speaker}: ${message.content}`)) })
      .execute('Release?');
    await Patterns.sequence({ agents })
      .overChannel({ onChannel: (channel) => channel.subscribe((message) => void seen.push(message.speaker)) })
      .execute('Release?');
    await Patterns.supervisor({ supervisor: defineAgent('lead', async () => 'FINAL: done'), workers: agents })
      .overChannel({ onChannel: (channel) => channel.subscribe((message) => void seen.push(message.content)) })
      .execute('Release?');
    await Patterns.voting({ agents })
      .overChannel({ onChannel: (channel) => channel.subscribe((result) => void seen.push(`vote ${result.agentId}`)) })
      .execute('Release?');
    await Patterns.parallel({ agents })
      .overChannel({ onChannel: (channel) => channel.subscribe((result) => void seen.push(`part ${result.agentId}`)) })
      .execute('Release?');
    expect(seen).toEqual(['pro: Ship.', 'con: Wait.', 'pro', 'con', 'FINAL: done', 'vote pro', 'vote con', 'part pro', 'part con']);
  });

  it('the wrong item type does not compile', () => {
    const watchResults = (channel: StreamingChannel<AgentResult>) => void channel;
    const watchMessages = (channel: StreamingChannel<PostedMessage>) => void channel;
    const watchAny = (channel: PatternChannel) => void channel;
    // @ts-expect-error a debate's channel carries messages, not agent results
    Patterns.debate({ agents }).overChannel({ onChannel: watchResults });
    // @ts-expect-error a message has no agentId
    Patterns.debate({ agents }).overChannel({ onChannel: (channel) => channel.subscribe((message) => void message.agentId) });
    // @ts-expect-error a vote's channel carries agent results, not messages
    Patterns.voting({ agents }).overChannel({ onChannel: watchMessages });
    // @ts-expect-error an agent result has no speaker
    Patterns.parallel({ agents }).overChannel({ onChannel: (channel) => channel.subscribe((result) => void result.speaker) });
    // @ts-expect-error a FanIn backend posts agent results
    ChannelBackend(ChannelExecutionStrategy.fanIn(), { onChannel: watchMessages });
    // A watcher of any pattern's channel fits every pattern.
    const builders = [Patterns.debate({ agents }).overChannel({ onChannel: watchAny }), Patterns.voting({ agents }).overChannel({ onChannel: watchAny })];
    const conversation = ChannelBackend(
      ChannelExecutionStrategy.conversation({ turnPolicy: { name: 'none', next: () => [] }, termination: TerminationCondition.maxMessages(1), project: (state) => state }),
      { onChannel: (channel) => channel.subscribe((message) => void message.speaker) },
    );
    expect([builders.length, conversation.strategy.kind]).toEqual([2, 'conversation']);
  });
});
