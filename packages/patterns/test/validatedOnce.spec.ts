import { ConfigError, defineAgent } from '@rxagents/core';
import {
  ChannelBackend,
  ChannelBackendOptionsSchema,
  ChannelExecutionStrategy,
  TerminationCondition,
  TurnPolicy,
  ConversationOrchestratorOptionsSchema,
  ConversationStrategySchema,
  CollectOptionsSchema,
  DebateOptionsSchema,
  ExecutionModel,
  ExecutionModelSchema,
  Patterns,
  SequenceOptionsSchema,
  VotingOptionsSchema,
} from '@rxagents/patterns';

const agents = [defineAgent('pro', async () => 'Ship.'), defineAgent('con', async () => 'Wait.')];

describe('pattern options are validated once, where the user gives them', () => {
  afterEach(() => jest.restoreAllMocks());
  const spies = () => {
    const schemas = { DebateOptionsSchema, VotingOptionsSchema, SequenceOptionsSchema, ChannelBackendOptionsSchema, ExecutionModelSchema, ConversationOrchestratorOptionsSchema, ConversationStrategySchema, CollectOptionsSchema };
    return Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, jest.spyOn(schema, 'safeParse')])) as Record<keyof typeof schemas, jest.SpyInstance>;
  };
  const calls = (spied: Record<string, jest.SpyInstance>) => Object.fromEntries(Object.entries(spied).map(([name, spy]) => [name, spy.mock.calls.length]));

  it('a debate over a channel: its options and its channel options once, nothing per run', async () => {
    const spied = spies();
    const debate = Patterns.debate({ agents, maxRounds: 1, timeout: 60_000 }).overChannel({ bufferSize: 8 });
    for (let run = 0; run < 3; run += 1) expect((await debate.execute('Release?')).status).toBe('completed');
    expect(calls(spied)).toEqual({
      DebateOptionsSchema: 1, VotingOptionsSchema: 0, SequenceOptionsSchema: 0, ChannelBackendOptionsSchema: 1,
      ExecutionModelSchema: 0, ConversationOrchestratorOptionsSchema: 0, ConversationStrategySchema: 0, CollectOptionsSchema: 0,
    });
  });

  it('a vote and a sequence over a channel: the same', async () => {
    const spied = spies();
    const vote = Patterns.voting({ agents }).overChannel();
    const pipeline = Patterns.sequence({ agents: [agents[0], agents[1], agents[0]] }).overChannel();
    for (let run = 0; run < 2; run += 1) {
      expect((await vote.execute('Ship?')).status).toBe('deadlocked');
      expect((await pipeline.execute('Ship?')).output).toBe('Ship.');
    }
    expect(calls(spied)).toMatchObject({ VotingOptionsSchema: 1, SequenceOptionsSchema: 1, ChannelBackendOptionsSchema: 2, ExecutionModelSchema: 0, CollectOptionsSchema: 0, ConversationOrchestratorOptionsSchema: 0 });
  });

  it('every ConfigError is still thrown where the options are given', () => {
    expect(() => Patterns.debate({ agents, maxRounds: 0 })).toThrow(ConfigError);
    expect(() => Patterns.debate({ agents }).overChannel({ bufferSize: -1 })).toThrow(ConfigError);
    expect(() => Patterns.sequence({ agents }).overChannel({ bufferSize: -1 })).toThrow('.overChannel() options');
    expect(() => Patterns.supervisor({ supervisor: defineAgent('lead', async () => 'FINAL: ok'), workers: agents }).overChannel({ id: ' ' })).toThrow(ConfigError);
    // A conversation gives each participant one voice: a custom model listing one agent twice is refused when the backend is attached.
    const twice = ExecutionModel.create<string>({
      pattern: 'p', agents: [agents[0], agents[0]], initialState: (s) => s, route: () => [], prompt: (s) => s, aggregate: (s) => s,
      termination: { description: 'never', evaluate: () => ({ type: 'continue' }) }, output: (s) => s,
    });
    const conversation = ChannelBackend(
      ChannelExecutionStrategy.conversation<string>({ turnPolicy: TurnPolicy.roundRobin(), termination: TerminationCondition.maxMessages(1), project: (state) => state.topic }),
    );
    expect(() => ExecutionModel.withBackend(twice, conversation)).toThrow(ConfigError);
    expect(() => ExecutionModel.withBackend(twice, conversation)).toThrow(/twice/);
  });
});
