import { TestScheduler } from 'rxjs/testing';
import { catchError, map, type Observable, of } from 'rxjs';
import { AgentError, AgentTimeoutError, callAgent, defineAgent, lastValue, type AgentCallResult } from '@rxagents/core';
import { failingAgent, hangingAgent, type HangingAgent } from '@rxagents/testing';
import {
  ConditionalHandoff,
  DefaultHandoff,
  handoff,
  HandoffChain,
  HandoffContext,
  handoffFilters,
  HandoffTimeoutError,
  handoffTo,
  parallelHandoffs$,
  routingAgent,
  type HandoffOutcome,
  type HandoffResult,
} from '@rxagents/handoff';

const testScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const intake = { id: 'intake' };

/** Every way to reach a receiver, each with a 50 ms timeout on `scheduler`: what it emits is described as text. */
const adapters: readonly (readonly [string, (stuck: HangingAgent) => Observable<string>])[] = [
  ['DefaultHandoff', (stuck) => new DefaultHandoff({ timeout: 50 }).execute$(intake, stuck, HandoffContext.of('t')).pipe(map(summary))],
  ['HandoffChain', (stuck) => HandoffChain.builder().from(intake).add(stuck).build().execute$(new DefaultHandoff(), HandoffContext.of('t'), { timeout: 50 }).pipe(map((steps) => steps.map(summary).join()))],
  ['ConditionalHandoff', (stuck) => new ConditionalHandoff().otherwise(stuck).execute$(new DefaultHandoff(), intake, HandoffContext.of('t'), { timeout: 50 }).pipe(map(summary))],
  ['handoffTo', (stuck) => of(HandoffContext.of('t')).pipe(handoffTo(stuck, { timeout: 50 }), map(summary))],
  ['Handoff', (stuck) => handoff({ agent: stuck, timeout: 50 }).execute$(intake, { input: 'x' }).pipe(map(summary), catchError(guard))],
  ['parallelHandoffs', (stuck) => parallelHandoffs$(intake, [[handoff({ agent: stuck, timeout: 50 }), 'x']]).pipe(map((outcomes) => outcomes.map(summary).join()))],
  [
    'routingAgent',
    (stuck) =>
      callAgent(routingAgent({ id: 'router', handoffs: [handoff({ agent: stuck, timeout: 50, condition: handoffFilters.always() })] }), 'x').pipe(
        map((call) => (call.success ? call.output : `failed: ${String((call.error as AgentError).cause?.constructor.name)}`)),
      ),
  ],
];

function summary(result: AgentCallResult): string {
  return result.success ? `ok: ${result.output}` : `failed: ${result.error.constructor.name}`;
}

function guard(error: Error): Observable<string> {
  return of(`rejected: ${error.constructor.name}`);
}

describe('one engine under every handoff', () => {
  it.each(adapters)('%s: the timeout, on the scheduler, aborts the receiver\'s signal with an AgentTimeoutError', (name, run) => {
    testScheduler().run(({ expectObservable, flush }) => {
      const stuck = hangingAgent('stuck');
      const expected = {
        DefaultHandoff: 'failed: AgentTimeoutError',
        HandoffChain: 'failed: AgentTimeoutError',
        ConditionalHandoff: 'failed: AgentTimeoutError',
        handoffTo: 'failed: AgentTimeoutError',
        Handoff: 'rejected: HandoffTimeoutError',
        parallelHandoffs: 'failed: HandoffTimeoutError',
        routingAgent: 'failed: HandoffTimeoutError',
      }[name];
      expectObservable(run(stuck)).toBe('50ms (r|)', { r: expected });
      flush();
      expect(stuck.aborted).toBe(true);
      expect(stuck.abortReasons[0]).toBeInstanceOf(AgentTimeoutError);
    });
  });

  it.each(adapters)('%s: unsubscribing aborts the receiver\'s signal', (_, run) => {
    const stuck = hangingAgent('stuck');
    run(stuck).subscribe().unsubscribe();
    expect(stuck.callCount).toBe(1);
    expect(stuck.aborted).toBe(true);
  });

  it.each([
    ['DefaultHandoff', (stuck: HangingAgent, signal: AbortSignal) => new DefaultHandoff().execute(intake, stuck, HandoffContext.of('t'), { signal })],
    ['HandoffChain', async (stuck: HangingAgent, signal: AbortSignal) => (await HandoffChain.builder().from(intake).add(stuck).build().execute(new DefaultHandoff(), HandoffContext.of('t'), { signal }))[0]],
    ['ConditionalHandoff', (stuck: HangingAgent, signal: AbortSignal) => new ConditionalHandoff().otherwise(stuck).execute(new DefaultHandoff(), intake, HandoffContext.of('t'), { signal })],
  ] as const)('%s: aborting the signal aborts the receiver, and the failure carries the reason as an Error', async (_, run) => {
    const stuck = hangingAgent('stuck');
    const controller = new AbortController();
    const pending = run(stuck, controller.signal);
    controller.abort('user left');
    const result = await pending;
    expect(stuck.aborted).toBe(true);
    expect(result?.success).toBe(false);
    expect(result?.error).toBeInstanceOf(AgentError);
    expect(result?.error).toMatchObject({ agentId: 'stuck', cause: 'user left' });
  });

  it.each([
    ['Handoff', (stuck: HangingAgent, signal: AbortSignal) => handoff({ agent: stuck }).execute(intake, { input: 'x' }, { signal })],
    ['parallelHandoffs', (stuck: HangingAgent, signal: AbortSignal) => lastValue(parallelHandoffs$(intake, [[stuck, 'x']]), { signal })],
  ] as const)('%s: aborting the signal aborts the receiver and rejects with the reason', async (_, run) => {
    const stuck = hangingAgent('stuck');
    const controller = new AbortController();
    const pending = run(stuck, controller.signal);
    const reason = new Error('user left');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(stuck.aborted).toBe(true);
  });
});

describe('results are core\'s AgentCallResult with the handoff\'s fields', () => {
  it('a strategy\'s result: agentId is the receiver, input the prompt it got; output on success, an Error and no output on failure', async () => {
    const billing = defineAgent('billing', async (input) => `got ${input.length} characters`);
    const context = HandoffContext.of('t-1', { invoiceId: '42' });
    const prompt = 'Check invoice 42';
    const ok: HandoffResult = await new DefaultHandoff({ prompt: () => prompt }).execute(intake, billing, context);
    expect(Object.keys(ok).sort()).toEqual(['agentId', 'context', 'durationMs', 'fromAgentId', 'input', 'output', 'startedAt', 'success', 'taskId', 'toAgentId']);
    expect(ok).toMatchObject({ success: true, agentId: 'billing', toAgentId: 'billing', input: prompt, output: 'got 16 characters' });
    if (ok.success) {
      const output: string = ok.output; // no `!`: the union narrows
      expect(output).toBe('got 16 characters');
    }
    const failed = await new DefaultHandoff().execute(intake, failingAgent('broken', 'not an Error'), context);
    expect(Object.keys(failed).sort()).toEqual(['agentId', 'context', 'durationMs', 'error', 'fromAgentId', 'input', 'startedAt', 'success', 'taskId', 'toAgentId']);
    expect(failed.error).toBeInstanceOf(Error);
    expect(failed.error).toBeInstanceOf(AgentError);
  });

  it('startedAt and durationMs are read from the scheduler', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const slow = defineAgent('slow', () => cold('7ms (a|)', { a: 'done' }));
      const times = (result: AgentCallResult) => [result.startedAt, result.durationMs];
      const later$ = cold('3ms a|').pipe(map(() => HandoffContext.of('t')), handoffTo(slow), map(times));
      expectObservable(later$).toBe('10ms (r|)', { r: [3, 7] });
    });
  });

  it('an outcome of handoff(): the same call fields, plus handedOffTo, durationSeconds and context; durationMs includes the wait for a permit', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const slow = defineAgent('slow', () => cold('10ms (a|)', { a: 'done' }));
      const h = handoff({ agent: slow, maxConcurrent: 1 });
      h.execute$(intake, { input: 'first' }).subscribe();
      const fields = (outcome: HandoffOutcome) => [outcome.agentId, outcome.handedOffTo, outcome.input, outcome.startedAt, outcome.durationMs, outcome.durationSeconds, outcome.success ? outcome.output : ''];
      expectObservable(h.execute$(intake, { input: 'queued' }).pipe(map(fields))).toBe('20ms (r|)', { r: ['slow', 'slow', 'queued', 0, 20, 0.02, 'done'] });
    });
  });

  it('a failure made before any receiver runs is an AgentCallResult too: no prompt, an Error', async () => {
    const routed = await new ConditionalHandoff().execute(new DefaultHandoff(), intake, HandoffContext.of('t'));
    expect(routed).toMatchObject({ success: false, agentId: 'none', toAgentId: 'none', input: '', startedAt: expect.any(Number), durationMs: expect.any(Number) });
    expect(routed.error).toBeInstanceOf(Error);
    const guarded = await lastValue(parallelHandoffs$(intake, [[handoff({ agent: defineAgent('deep', async () => 'x'), maxDepth: 0 }), 'the prompt']]));
    expect(guarded[0]).toMatchObject({ success: false, agentId: 'deep', handedOffTo: 'deep', input: 'the prompt', durationMs: expect.any(Number), durationSeconds: expect.any(Number) });
    expect(guarded[0]?.error).toBeInstanceOf(Error);
  });

  it('a timeout of handoff() rejects with HandoffTimeoutError whose cause is the call\'s AgentTimeoutError', () => {
    testScheduler().run(({ expectObservable }) => {
      const timedOut$ = handoff({ agent: hangingAgent('stuck'), timeout: 5 }).execute$(intake, { input: 'x' }).pipe(
        map(() => 'no'),
        catchError((error: HandoffTimeoutError) => of(error.cause instanceof AgentTimeoutError)),
      );
      expectObservable(timedOut$).toBe('5ms (r|)', { r: true });
    });
  });
});
