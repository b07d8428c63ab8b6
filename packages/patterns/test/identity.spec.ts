import { ConfigError, defineAgent } from '@rxagents/core';
import {
  AgentRef,
  ChannelExecutionStrategy,
  ComposedAgent,
  ConversationOrchestrator,
  ConversationState,
  ExecutionModel,
  Patterns,
  TerminationCondition,
  TurnPolicy,
  UnknownParticipantError,
} from '@rxagents/patterns';

const agent = (id: string, answer = 'ok') => defineAgent(id, async () => answer);
const twins = () => [agent('same', 'first'), agent('same', 'second')];

describe('agent identity', () => {
  describe('two different agents with one id are refused with a ConfigError naming the id', () => {
    const builders: ReadonlyArray<readonly [string, () => unknown]> = [
      ['debate', () => Patterns.debate({ agents: twins() })],
      ['voting', () => Patterns.voting({ agents: twins() })],
      ['parallel', () => Patterns.parallel({ agents: twins() })],
      ['sequence', () => Patterns.sequence({ agents: twins() })],
      ['supervisor workers', () => Patterns.supervisor({ supervisor: agent('lead'), workers: twins() })],
      ['supervisor and a worker', () => Patterns.supervisor({ supervisor: agent('same'), workers: [agent('same')] })],
      ['ConversationOrchestrator', () => ConversationOrchestrator.create({ participants: twins(), termination: TerminationCondition.maxMessages(1) })],
      [
        'ExecutionModel',
        () =>
          ExecutionModel.create<string>({
            pattern: 'p', agents: twins(), initialState: (s) => s, route: () => [], prompt: (s) => s, aggregate: (s) => s,
            termination: TerminationCondition.maxIterations(1), output: (s) => s,
          }),
      ],
    ];
    it.each(builders)('%s', (_name, make) => {
      expect(make).toThrow(ConfigError);
      expect(make).toThrow(/"same"/);
    });
  });

  it('the same agent listed twice is refused where each id speaks once (debate, voting, parallel, conversation)', () => {
    const a = agent('a');
    const b = agent('b');
    expect(() => Patterns.debate({ agents: [a, b, a] })).toThrow(ConfigError);
    expect(() => Patterns.voting({ agents: [a, a] })).toThrow(ConfigError);
    expect(() => Patterns.parallel({ agents: [a, a] })).toThrow(ConfigError);
    expect(() => ConversationOrchestrator.create({ participants: [a, a], termination: TerminationCondition.maxMessages(1) })).toThrow(ConfigError);
  });

  it('a sequence may run the same agent at several steps', async () => {
    const echo = defineAgent('echo', async (input) => `${input}!`);
    const result = await Patterns.sequence({ agents: [echo, agent('mid', 'x'), echo] }).execute('go');
    expect([result.status, result.output]).toEqual(['completed', 'x!']);
  });

  it('over a channel, a vote no longer reports one voter twice', () => {
    expect(() => Patterns.voting({ agents: twins() }).overChannel()).toThrow(ConfigError);
  });

  it('blank ids are refused for ComposedAgent, asAgent and AgentRef.composed', () => {
    const model = Patterns.voting({ agents: [agent('a')] }).build();
    expect(() => new ComposedAgent('  ', model)).toThrow(ConfigError);
    expect(() => Patterns.voting({ agents: [agent('a')] }).asAgent('')).toThrow(ConfigError);
    expect(() => AgentRef.composed(' ', model)).toThrow(ConfigError);
    expect(() => AgentRef.of({ id: ' ', chat: async () => 'x' } as never)).toThrow(ConfigError);
    expect(() => Patterns.voting({ agents: [{ id: '', chat: async () => 'x' } as never] })).toThrow(ConfigError);
  });
});

describe('the supervisor matches DELEGATE against its workers\' ids, longest first', () => {
  const delegateTo = async (workers: readonly string[], delegation: string) => {
    let turn = 0;
    const lead = defineAgent('lead', async () => (turn++ === 0 ? delegation : 'FINAL: done'));
    const result = await Patterns.supervisor({ supervisor: lead, workers: workers.map((id) => agent(id, `${id} did it`)) }).execute('task');
    return result;
  };

  it.each([
    [['data analyst', 'writer'], 'DELEGATE data analyst: chart the Q3 numbers', 'data analyst', 'chart the Q3 numbers'],
    [['аналитик'], 'DELEGATE аналитик: посчитай выручку', 'аналитик', 'посчитай выручку'],
    [['qa', 'qa lead'], 'DELEGATE qa lead: sign off', 'qa lead', 'sign off'],
    [['qa', 'qa lead'], 'delegate qa : smoke test', 'qa', 'smoke test'],
    [['team:alpha'], 'DELEGATE team:alpha: ship it', 'team:alpha', 'ship it'],
  ])('%j, %s', async (workers, delegation, worker, instruction) => {
    const result = await delegateTo(workers, delegation);
    expect(result.status).toBe('completed');
    expect(result.state.steps).toEqual([{ worker, instruction, output: `${worker} did it` }]);
  });

  it('an id that is no worker still fails with UnknownParticipantError naming it', async () => {
    const result = await delegateTo(['writer'], 'DELEGATE data analyst: chart it');
    expect(result.status).toBe('failed');
    expect(result.error).toBeInstanceOf(UnknownParticipantError);
    expect((result.error as Error).message).toContain('"data analyst"');
  });
});

describe('TurnPolicy.addressed matches @mentions against the participants\' ids, longest first', () => {
  const after = (participants: readonly string[], speaker: string, content: string) =>
    TurnPolicy.addressed(TurnPolicy.custom('nobody', () => [])).next(ConversationState.fold(ConversationState.initial('t', participants), { speaker, content, at: 0 }));

  it.each([
    [['pm', 'аня'], 'pm', '@аня, посмотри', ['аня']],
    [['pm', 'data analyst'], 'pm', 'over to you, @data analyst.', ['data analyst']],
    [['pm', 'qa'], 'pm', 'Looks good to me, @qa.', ['qa']],
    [['pm', 'qa', 'qa.lead'], 'pm', '@qa.lead then @qa!', ['qa.lead', 'qa']],
    [['pm', 'qa'], 'pm', 'ask @qabot, not a participant', []],
    [['pm', 'qa'], 'pm', 'mail me at pm@qa.example', []],
    [['pm', 'qa'], 'qa', '@qa talking to myself', []],
  ])('%j: %s says %j', (participants, speaker, content, expected) => {
    expect(after(participants, speaker, content)).toEqual(expected);
  });
});

describe('ids are never plain-object keys', () => {
  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])('a speaker named %s counts from zero', (id) => {
    const outsider = ConversationState.fold(ConversationState.initial('t', ['a']), { speaker: id, content: 'hi', at: 0 });
    expect(outsider.messages[0]?.round).toBe(1);
    const member = ConversationState.fold(ConversationState.initial('t', [id, 'b']), { speaker: id, content: 'hi', at: 0 });
    expect([member.messages[0]?.round, member.round]).toEqual([1, 0]);
  });

  it('the default prompt tells a participant named constructor it is in round 1', async () => {
    const { conversationPrompt } = await import('@rxagents/patterns');
    expect(conversationPrompt(ConversationState.initial('t', ['a']), 'constructor')).toContain('Round 1:');
  });
});

describe('a custom model that lists one agent twice, over a Barrier', () => {
  it('keeps both of its results', async () => {
    let calls = 0;
    const twice = defineAgent('twice', async () => `call ${++calls}`);
    const other = agent('other', 'o');
    const { ChannelBackend: Backend, runModel } = await import('@rxagents/patterns');
    const model = ExecutionModel.create<string[]>({
      pattern: 'repeat', agents: [twice, other, twice], initialState: () => [], route: () => [twice, other, twice], prompt: () => 'go',
      aggregate: (state, result) => (result.success ? [...state, result.output] : state), termination: TerminationCondition.maxIterations(1), output: (state) => state.join(','),
      concurrency: 3,
    });
    const { lastValueFrom } = await import('rxjs');
    const result = await lastValueFrom(runModel(ExecutionModel.withBackend(model, Backend(ChannelExecutionStrategy.barrier())), 'x'));
    expect(result.results.map((r) => r.agentId)).toEqual(['twice', 'other', 'twice']);
    expect([...result.state].sort()).toEqual(['call 1', 'call 2', 'o']);
  });
});
