import { ConfigError, defineAgent } from '@rxagents/core';
import {
  ChannelBackend,
  ChannelExecutionStrategy,
  ConversationOrchestrator,
  ExecutionModel,
  Patterns,
  TerminationCondition,
  TurnPolicy,
  type ExecutionModelDefinition,
} from '@rxagents/patterns';

const a = defineAgent('a', async () => 'yes');
const b = defineAgent('b', async () => 'no');

const definition = (extra: Record<string, unknown> = {}): ExecutionModelDefinition<string> =>
  ({
    pattern: 'p', agents: [a], initialState: (s: string) => s, route: () => [], prompt: (s: string) => s, aggregate: (s: string) => s,
    termination: TerminationCondition.maxIterations(1), output: (s: string) => s, ...extra,
  }) as ExecutionModelDefinition<string>;

describe('options objects are strict and checked where they are given', () => {
  it('ExecutionModel.create refuses a misspelt key, naming the likely one', () => {
    expect(() => ExecutionModel.create(definition({ agentTimout: 5 }))).toThrow(/agentTimout is not a known option \(did you mean agentTimeout\?\)/);
  });

  it('blank pattern names are refused (model and orchestrator)', () => {
    expect(() => ExecutionModel.create(definition({ pattern: '   ' }))).toThrow(ConfigError);
    expect(() => ConversationOrchestrator.create({ participants: [a], termination: TerminationCondition.maxMessages(1), pattern: ' ' })).toThrow(ConfigError);
  });

  it('.overChannel() checks its options at once: a typo, a blank id, a buffer no channel can allocate', () => {
    for (const make of [(o: never) => Patterns.voting({ agents: [a] }).overChannel(o), (o: never) => Patterns.parallel({ agents: [a] }).overChannel(o), (o: never) => Patterns.debate({ agents: [a, b] }).overChannel(o)]) {
      expect(() => make({ bufferSzie: 8 } as never)).toThrow(/bufferSzie is not a known option \(did you mean bufferSize\?\)/);
      expect(() => make({ id: '  ' } as never)).toThrow(ConfigError);
      expect(() => make({ bufferSize: 2 ** 32 } as never)).toThrow(ConfigError);
    }
    expect(() => ChannelBackend(ChannelExecutionStrategy.fanIn(), { id: '\t' })).toThrow(ConfigError);
  });

  it('ChannelExecutionStrategy.conversation validates its settings', () => {
    expect(() => ChannelExecutionStrategy.conversation({ turnPolicy: TurnPolicy.roundRobin(), termination: TerminationCondition.maxMessages(2), project: (s: unknown) => s, prompts: () => '' } as never)).toThrow(
      /prompts is not a known option \(did you mean prompt\?\)/,
    );
    expect(() => ChannelExecutionStrategy.conversation({ turnPolicy: TurnPolicy.roundRobin(), project: (s: unknown) => s } as never)).toThrow(/termination/);
  });

  it('custom turn policies and conditions are checked when made', () => {
    expect(() => TurnPolicy.custom(' ', () => [])).toThrow(ConfigError);
    expect(() => TurnPolicy.custom('x', 'not a function' as never)).toThrow(ConfigError);
    expect(() => TurnPolicy.addressed({ nope: true } as never)).toThrow(ConfigError);
    expect(() => TerminationCondition.of('', () => ({ type: 'continue' }))).toThrow(ConfigError);
    expect(() => TerminationCondition.of('x', undefined as never)).toThrow(ConfigError);
    expect(() => TerminationCondition.textMention('DONE', '  ')).toThrow(ConfigError);
    expect(() => TerminationCondition.timeout(1_000, 'abort' as never)).toThrow(ConfigError);
    expect(() => TerminationCondition.judgeConvergence({ id: 'judge' } as never)).toThrow(ConfigError);
  });

  it('execute() refuses a misspelt option (signl would silently mean "never cancel") and a non-string input', async () => {
    const vote = Patterns.voting({ agents: [a] });
    await expect(vote.execute('Ship?', { signl: AbortSignal.abort() } as never)).rejects.toThrow(/signl is not a known option \(did you mean signal\?\)/);
    expect(() => vote.execute$(42 as never)).toThrow(ConfigError);
    await expect(vote.execute(42 as never)).rejects.toThrow(ConfigError);
  });
});
