import { lastValueFrom } from 'rxjs';
import { ConfigError } from '@rxagents/core';
import { failingAgent, scriptedAgent } from '@rxagents/testing';
import { StreamingChannel } from '@rxagents/streaming';
import { ConversationOrchestrator, ConversationState, evaluateTermination, ExecutionModel, Patterns, runModel, TerminationCondition, type PostedMessage, type TerminationDecision } from '@rxagents/patterns';

const said = (...contents: string[]): ConversationState =>
  contents.reduce((state, content, index) => ConversationState.fold(state, { speaker: index % 2 === 0 ? 'a' : 'b', content, at: index }), ConversationState.initial('t', ['a', 'b']));

const decide = <T>(condition: TerminationCondition<T>, state: T, iteration = 0, elapsedMs = 0): Promise<TerminationDecision> =>
  lastValueFrom(evaluateTermination(condition, { state, iteration, elapsedMs }));

describe('TerminationCondition', () => {
  it('maxIterations, timeout, textMention and maxMessages decide on the snapshot', async () => {
    expect((await decide(TerminationCondition.maxIterations(2), null, 1)).type).toBe('continue');
    expect(await decide(TerminationCondition.maxIterations(2), null, 2)).toEqual({ type: 'complete', reason: 'reached 2 iterations' });
    expect((await decide(TerminationCondition.timeout(100, 'failed'), null, 0, 100)).type).toBe('failed');
    expect((await decide(TerminationCondition.textMention('TERMINATE'), said('hi', 'ok TERMINATE'))).type).toBe('complete');
    expect((await decide(TerminationCondition.textMention('TERMINATE', 'a'), said('hi', 'ok TERMINATE'))).type).toBe('continue');
    expect((await decide(TerminationCondition.maxMessages(3), said('1', '2'))).type).toBe('continue');
    expect((await decide(TerminationCondition.maxMessages(3), said('1', '2', '3'))).type).toBe('complete');
  });

  it('or stops with the first part that stops and does not evaluate the rest', async () => {
    const later = scriptedAgent('judge', 'CONVERGED');
    const condition = TerminationCondition.or<ConversationState>(TerminationCondition.maxMessages(2), TerminationCondition.judgeConvergence(later));
    expect(await decide(condition, said('1', '2'))).toEqual({ type: 'complete', reason: 'reached 2 messages' });
    expect(later.inputs).toHaveLength(0);
  });

  it('and is evaluated on one snapshot: a part that held earlier does not count (unlike AutoGen\'s sticky &)', async () => {
    const condition = TerminationCondition.and<ConversationState>(TerminationCondition.textMention('AGREED'), TerminationCondition.maxMessages(3));
    // AGREED was said at message 2, but by message 3 the last message no longer mentions it.
    expect((await decide(condition, said('x', 'AGREED'))).type).toBe('continue');
    expect((await decide(condition, said('x', 'AGREED', 'y'))).type).toBe('continue');
    expect(await decide(condition, said('x', 'y', 'AGREED'))).toEqual({ type: 'complete', reason: 'a said "AGREED" and reached 3 messages' });
  });

  it('and reports the most severe decision of its parts', async () => {
    const failed = TerminationCondition.of<null>('f', () => ({ type: 'failed', reason: 'broke' }));
    const done = TerminationCondition.of<null>('d', () => ({ type: 'complete', reason: 'done' }));
    expect(await decide(TerminationCondition.and(done, failed), null)).toEqual({ type: 'failed', reason: 'done and broke' });
  });

  it('judgeConvergence asks only after a completed round, escalates at maxIterations, fails with the judge', async () => {
    const judge = scriptedAgent('judge', 'CONTINUE');
    const condition = TerminationCondition.judgeConvergence(judge, { maxIterations: 2 });
    expect((await decide(condition, said('a1'), 0)).type).toBe('continue');
    expect(judge.inputs).toHaveLength(0);
    expect((await decide(condition, said('a1', 'b1'), 1)).type).toBe('continue');
    expect(judge.inputs[0]).toContain('a: a1\nb: b1');
    expect((await decide(condition, said('a1', 'b1', 'a2', 'b2'), 2)).type).toBe('escalate');
    const broken = TerminationCondition.judgeConvergence(failingAgent('judge', new Error('no verdict')));
    const decision = await decide(broken, said('a1', 'b1'), 1);
    expect(decision.type === 'failed' && (decision.error as Error).message).toBe('Agent "judge" failed: no verdict');
  });

  it.each([
    [{ type: 'escalated', reason: 'the judge gave up' }],
    [{ type: 'failure', reason: 'over budget' }],
    [{ type: 'continu' }],
    [{ type: 'complete' }],
  ])('a condition that gives %j (not a TerminationDecision) fails the run with a TypeError instead of completing it', async (decision) => {
    const agent = scriptedAgent('a', 'x');
    const condition = TerminationCondition.of<number>('budget', () => decision as unknown as TerminationDecision);
    const model = ExecutionModel.create<number>({ pattern: 'p', agents: [agent], initialState: () => 0, route: () => [agent], prompt: () => 'go', aggregate: (n) => n + 1, termination: condition, output: String });
    const direct = await lastValueFrom(runModel(model, 'go')).catch((error: unknown) => error);
    const conversation = ConversationOrchestrator.create({ participants: [agent], termination: TerminationCondition.of<ConversationState>('budget', () => decision as unknown as TerminationDecision) });
    const overChannel = await lastValueFrom(conversation.conversation$('t', StreamingChannel.create<PostedMessage>())).catch((error: unknown) => error);
    for (const outcome of [direct, overChannel]) {
      expect(outcome).toBeInstanceOf(TypeError);
      expect((outcome as TypeError).message).toBe(
        `TerminationCondition "budget" gave ${JSON.stringify(decision)}; return a TerminationDecision (CONTINUE to go on, or { type: 'complete' | 'failed' | 'escalate', reason })`,
      );
    }
  });

  it.each([
    ['or', TerminationCondition.or],
    ['and', TerminationCondition.and],
  ] as const)('%s refuses no part, or a part that is not a condition, when it is called rather than when the run evaluates it', (name, combine) => {
    expect(() => combine()).toThrow(`TerminationCondition.${name}: value must combine at least one condition, got []`);
    expect(() => combine(TerminationCondition.maxIterations(1), undefined as never)).toThrow(ConfigError);
    expect(() => combine(TerminationCondition.maxIterations(1), { description: 'no evaluate' } as never)).toThrow(
      `TerminationCondition.${name}: 1 must be a TerminationCondition (with evaluate()), got {"description":"no evaluate"}`,
    );
  });

  it.each(['direct', 'channel'] as const)('%s: a judge prompt that throws or gives no string fails the debate as the judge failing, as a throwing predicate does', async (mode) => {
    const bug = new Error('prompt bug');
    const outcomes: string[] = [];
    for (const prompt of [() => { throw bug; }, () => 42 as unknown as string]) {
      const judge = scriptedAgent('judge', 'CONVERGED');
      const debate = Patterns.debate({ agents: [scriptedAgent('a', 'yes'), scriptedAgent('b', 'no')], maxRounds: 3, judge, judgeOptions: { prompt } });
      const result = await (mode === 'direct' ? debate : debate.overChannel()).execute('topic');
      outcomes.push(`${result.status} | ${result.reason} | ${(result.error as Error).message} | judge called ${judge.inputs.length} times`);
    }
    expect(outcomes).toEqual([
      'failed | judge judge failed | prompt bug | judge called 0 times',
      'failed | judge judge failed | judgeConvergence(judge): prompt gave 42; return the text to ask the judge | judge called 0 times',
    ]);
  });

  it('accepts a custom predicate and rejects bad settings', async () => {
    const judge = scriptedAgent('judge', 'yes, settled');
    const condition = TerminationCondition.judgeConvergence(judge, { predicate: (verdict) => verdict.startsWith('yes') });
    expect((await decide(condition, said('a1', 'b1'), 1)).type).toBe('complete');
    expect(() => TerminationCondition.maxIterations(0)).toThrow(ConfigError);
    expect(() => TerminationCondition.judgeConvergence(judge, { maxIterations: -1 })).toThrow('judgeConvergence options: maxIterations must be a positive integer, got -1');
  });

  it.each([null, undefined, 42, {}])('evaluateTermination refuses %p as the condition or the snapshot with a ConfigError naming it', (bad) => {
    expect(() => evaluateTermination(bad as never, { state: 0, iteration: 0, elapsedMs: 0 })).toThrow(ConfigError);
    expect(() => evaluateTermination(bad as never, { state: 0, iteration: 0, elapsedMs: 0 })).toThrow(/^evaluateTermination: condition must be a TerminationCondition/);
    if (typeof bad !== 'object' || bad === null) expect(() => evaluateTermination(TerminationCondition.maxIterations(1), bad as never)).toThrow(/^evaluateTermination: snapshot must be a snapshot/);
  });
});
