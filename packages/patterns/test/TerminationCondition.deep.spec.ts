import { lastValueFrom, map, of } from 'rxjs';
import { defineAgent } from '@rxagents/core';
import { scriptedAgent } from '@rxagents/testing';
import {
  CONTINUE,
  ConversationOrchestrator,
  ConversationState,
  evaluateTermination,
  TerminationCondition,
  type ConversationEvent,
  type PostedMessage,
  type TerminationDecision,
} from '@rxagents/patterns';
import { Subject } from 'rxjs';
import { testScheduler } from './helpers';

const said = (content: string): ConversationState => ConversationState.fold(ConversationState.initial('t', ['a']), { speaker: 'a', content, at: 0 });

const decide = <T>(condition: TerminationCondition<T>, state: T, iteration = 0): Promise<TerminationDecision> =>
  lastValueFrom(evaluateTermination(condition, { state, iteration, elapsedMs: 0 }));

const words = (n: number): string[] => Array.from({ length: n }, (_, i) => `<STOP${i}>`);

/** `or`/`and` folded over `n` conditions, as `reduce` builds them: each level nests the previous one. */
function nested(kind: 'or' | 'and' | 'alternating', parts: readonly TerminationCondition<ConversationState>[]): TerminationCondition<ConversationState> {
  return parts.reduce((acc, part, index) => {
    const useOr = kind === 'or' || (kind === 'alternating' && index % 2 === 0);
    return useOr ? TerminationCondition.or(acc, part) : TerminationCondition.and(acc, part);
  });
}

function bareChannel() {
  const posted = new Subject<PostedMessage>();
  return { emit: (message: PostedMessage) => (posted.next(message), true), asObservable: () => posted.asObservable() };
}

describe('composed termination conditions at depth', () => {
  it('a conversation stopped by or-ing 300 stop words (built with reduce) ends with a result', async () => {
    const stopWords = words(300).map((word) => TerminationCondition.textMention(word));
    const termination = stopWords.reduce((acc, condition) => TerminationCondition.or(acc, condition));
    const speaker = defineAgent('a', async () => 'I am done: <STOP299>');
    const orchestrator = ConversationOrchestrator.create({ participants: [speaker], termination });
    const events = await lastValueFrom(orchestrator.conversation$('t', bareChannel()).pipe(map((event: ConversationEvent) => event)));
    expect(events.type === 'finished' && events.decision).toEqual({ type: 'complete', reason: 'a said "<STOP299>"' });
  });

  it.each(['or', 'and', 'alternating'] as const)('%s nested 10,000 levels deep decides without overflowing the stack', async (kind) => {
    const all = words(10_000).map((word) => TerminationCondition.textMention(word));
    const condition = nested(kind, all);
    const last = '<STOP9999>';
    const decision = await decide(condition, said(last));
    if (kind === 'or') expect(decision).toEqual({ type: 'complete', reason: `a said "${last}"` });
    else expect(decision).toEqual(CONTINUE);
    // Everything holds: and stops with every reason joined.
    const always = Array.from({ length: 10_000 }, (_, i) => TerminationCondition.of<ConversationState>(`c${i}`, () => ({ type: 'complete', reason: `r${i}` })));
    const everything = await decide(nested(kind, always), said('x'));
    expect(everything.type).toBe('complete');
    if (kind === 'and') expect(everything.type !== 'continue' && everything.reason.split(' and ')).toHaveLength(10_000);
  });

  it('10,000 levels of and/or with asynchronous parts decide on virtual time', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const later = (i: number) => TerminationCondition.of<ConversationState>(`late${i}`, () => cold('1ms (d|)', { d: i === 9_999 ? { type: 'escalate', reason: 'last' } : CONTINUE }));
      const parts = Array.from({ length: 10_000 }, (_, i) => (i % 100 === 0 ? later(i) : TerminationCondition.maxMessages(5)));
      const condition = nested('or', [...parts, later(9_999)]);
      expectObservable(evaluateTermination(condition, { state: said('x'), iteration: 0, elapsedMs: 0 })).toBe('101ms (d|)', { d: { type: 'escalate', reason: 'last' } });
    });
  });

  it('describes a 10,000-level condition without overflowing the stack', () => {
    const condition = nested('alternating', words(10_000).map((word) => TerminationCondition.textMention(word)));
    expect(condition.description.length).toBeGreaterThan(10_000 * 10);
    expect(TerminationCondition.or(TerminationCondition.and(TerminationCondition.maxMessages(1), TerminationCondition.maxMessages(2)), TerminationCondition.maxIterations(3)).description).toBe(
      '(maxMessages(1) & maxMessages(2)) | maxIterations(3)',
    );
    expect(TerminationCondition.or(TerminationCondition.or(TerminationCondition.maxMessages(1), TerminationCondition.maxMessages(2)), TerminationCondition.maxIterations(3)).description).toBe(
      'maxMessages(1) | maxMessages(2) | maxIterations(3)',
    );
  });

  it('a composed condition can still be evaluated through its own evaluate()', async () => {
    const condition = TerminationCondition.or<null>(TerminationCondition.maxIterations(1), TerminationCondition.maxIterations(2));
    const decision = await lastValueFrom(of(null).pipe(map(() => condition.evaluate({ state: null, iteration: 2, elapsedMs: 0 }))));
    expect(await lastValueFrom(evaluateTermination(TerminationCondition.of('wrapped', () => decision), { state: null, iteration: 2, elapsedMs: 0 }))).toEqual({
      type: 'complete',
      reason: 'reached 1 iterations',
    });
  });

  it('a run over 10,000 or-ed conditions finishes with a result (scripted agent, virtual time)', () => {
    testScheduler().run(({ expectObservable }) => {
      const termination = nested('or', words(10_000).map((word) => TerminationCondition.textMention(word)));
      const speaker = scriptedAgent('a', { reply: '<STOP9999>', delay: 3 });
      const orchestrator = ConversationOrchestrator.create({ participants: [speaker], termination });
      expectObservable(orchestrator.conversation$('t', bareChannel()).pipe(map((event) => event.type))).toBe('3ms (mf|)', { m: 'message', f: 'finished' });
    });
  });
});
