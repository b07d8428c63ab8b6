import { ConfigError, defineAgent, emptyRunView, reduceRunView, type RunContext, type RunEvent, type RunView } from '@rxagents/core';
import {
  ChoreographyEngine,
  type ChoreographyResult,
  ChoreographySpec,
  executeChoreography,
  executeChoreography$,
  observeChoreography,
} from '@rxagents/choreography';
import { failingAgent, hangingAgent, scriptedAgent } from '@rxagents/testing';
import { asyncScheduler, first, lastValueFrom, type Observable, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { brief, checked } from './fixtures';

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const silent = { warn: () => undefined };

const fanSpec = () =>
  ChoreographySpec.builder('fan')
    .initialEvent('go')
    .interaction('left', 'u', 'l', 'go', 'leftDone', 'Left')
    .interaction('right', 'u', 'r', 'go', null, 'Right')
    .interaction('after', 'l', 'a', 'leftDone', null, 'After')
    .build();

/** The view of a run, and what it says about each agent call and the root node. */
function read(events: readonly RunEvent[]): { view: RunView; calls: string[]; root: RunEvent | undefined } {
  const view = events.reduce(reduceRunView, emptyRunView);
  const calls = view.nodes.filter((node) => node.kind === 'call').map((node) => `${node.name}:${node.status}:${node.text}`);
  return { view, calls, root: events.at(-1) };
}

/** What the result says about each agent call, in the same words as {@link read}. */
const callsOf = (result: ChoreographyResult): string[] =>
  result.stepResults.map((step) => `${step.agentId}:${step.success ? 'completed' : step.error.name === 'ChoreographyTimeoutError' ? 'cancelled' : 'failed'}:${step.success ? step.output : ''}`);

describe('reducing the events gives the result of the Promise form', () => {
  const cases: ReadonlyArray<[string, () => Parameters<typeof executeChoreography>[0]]> = [
    ['all steps succeed', () => ({ spec: fanSpec(), agents: { l: scriptedAgent('l', { reply: 'L', delay: 3 }), r: scriptedAgent('r', { reply: 'R', delay: 5 }), a: scriptedAgent('a', { reply: 'A', delay: 4 }) } })],
    ['a step fails', () => ({ spec: fanSpec(), agents: { l: scriptedAgent('l', 'L'), r: failingAgent('r', new Error('no quota'), { delay: 2 }), a: scriptedAgent('a', { reply: 'A', delay: 4 }) } })],
    ['the timeout cuts a step short', () => ({ spec: fanSpec(), agents: { l: scriptedAgent('l', 'L'), r: scriptedAgent('r', 'R'), a: hangingAgent('a') }, timeout: 20 })],
  ];
  it.each(cases)('%s: run-end, steps and calls match the ChoreographyResult', (_name, options) => {
    newScheduler().run(({ flush }) => {
      let result: ChoreographyResult | undefined;
      executeChoreography$({ ...options(), input: 'x', logger: silent }).subscribe((value) => (result = value));
      const events: RunEvent[] = [];
      observeChoreography({ ...options(), input: 'x', logger: silent }).subscribe((event) => events.push(event));
      flush();
      if (result === undefined) throw new Error('the run gave no result');
      const { view, calls, root } = read(checked(events));
      const last = result.stepResults.at(-1);
      expect(root).toMatchObject({ type: 'run-end', success: result.success, durationMs: result.totalDurationMs });
      expect(root?.type === 'run-end' && root.output).toBe(result.success && last?.success === true ? last.output : undefined);
      expect(view.status).toBe(result.success ? 'completed' : 'failed');
      expect(calls.sort()).toEqual(callsOf(result).sort());
      const steps = events.filter((event) => event.type === 'step');
      expect(steps.map((step) => [step.interactionId, step.agentId, step.success, step.durationMs])).toEqual(
        result.stepResults.map((step) => [step.interactionId, step.agentId, step.success, step.durationMs]),
      );
      const termination = events.find((event) => event.type === 'termination');
      expect(termination?.type === 'termination' && termination.decision).toBe(result.timedOut ? 'timed-out' : 'completed');
    });
  });

  it('the Promise forms agree with the events, on real time', async () => {
    const agents = { l: defineAgent('l', async () => 'L'), r: defineAgent('r', async () => 'R'), a: defineAgent('a', async () => 'A') };
    const result = await executeChoreography({ spec: fanSpec(), agents, input: 'x' });
    const events = checked(await lastValueFrom(observeChoreography({ spec: fanSpec(), agents, input: 'x' }).pipe(toArray())));
    const { calls, root } = read(events);
    expect(root).toMatchObject({ type: 'run-end', success: result.success, output: 'A' });
    expect(calls.sort()).toEqual(callsOf(result).sort());
  });
});

describe('cancellation', () => {
  it('unsubscribing from events$ aborts every running agent', () => {
    newScheduler().run(({ flush }) => {
      const l = hangingAgent('l');
      const r = hangingAgent('r');
      const engine = new ChoreographyEngine({ spec: fanSpec(), agents: { l, r, a: scriptedAgent('a', 'A') }, logger: silent });
      const subscription = engine.events$().subscribe();
      expect([l.callCount, r.callCount]).toEqual([1, 1]);
      subscription.unsubscribe();
      flush();
      expect([l.aborted, r.aborted]).toEqual([true, true]);
    });
  });

  it('cancelling a choreography inside a run reports each running call and the node as cancelled (AbortError)', () => {
    newScheduler().run(({ cold, flush }) => {
      const l = hangingAgent('l');
      const r = hangingAgent('r');
      const engine = new ChoreographyEngine({ spec: fanSpec(), agents: { l, r, a: scriptedAgent('a', 'A') }, logger: silent });
      const events: RunEvent[] = [];
      const run: RunContext = { runId: 'run-1', callId: 'host', parentCallId: null, scheduler: asyncScheduler, emit: (event) => events.push(event) };
      const subscription = engine.execute$({ run }).subscribe();
      cold('7ms a').subscribe(() => subscription.unsubscribe());
      flush();
      expect(checked(events).map(brief).slice(-3)).toEqual(['call-error@7 l:AbortError', 'call-error@7 r:AbortError', 'run-end@7 :AbortError']);
      expect(events[0]).toMatchObject({ type: 'run-start', parentCallId: 'host', name: 'choreography' });
      expect([l.aborted, r.aborted]).toEqual([true, true]);
    });
  });
});

describe('a consumer that takes the result and leaves', () => {
  it('first() on execute$ with a run sees the choreography node completed, not cancelled', () => {
    newScheduler().run(({ flush }) => {
      const agents = { l: scriptedAgent('l', { reply: 'L', delay: 3 }), r: scriptedAgent('r', { reply: 'R', delay: 5 }), a: scriptedAgent('a', { reply: 'A', delay: 4 }) };
      const engine = new ChoreographyEngine({ spec: fanSpec(), agents, logger: silent });
      const events: RunEvent[] = [];
      const run: RunContext = { runId: 'run-1', callId: 'host', parentCallId: null, scheduler: asyncScheduler, emit: (event) => events.push(event) };
      let result: ChoreographyResult | undefined;
      engine.execute$({ run }).pipe(first()).subscribe((value) => (result = value));
      flush();
      expect(result?.success).toBe(true);
      expect(checked(events).at(-1)).toMatchObject({ type: 'run-end', callId: events[0]?.callId, success: true });
    });
  });
});

describe('run options', () => {
  const agents = () => ({ l: scriptedAgent('l', 'L'), r: scriptedAgent('r', 'R'), a: scriptedAgent('a', 'A') });

  /** The error a call throws at once: a bad option is refused before anything is subscribed. */
  const errorOf = (make: () => Observable<unknown>): unknown => {
    try {
      make();
    } catch (error) {
      return error;
    }
    return undefined;
  };

  it('refuses a run that is not a run context, naming the field, and events$ and observeChoreography take no run', () => {
    const engine = new ChoreographyEngine({ spec: fanSpec(), agents: agents(), logger: silent });
    expect(errorOf(() => engine.execute$({ run: { runId: 'r' } as unknown as RunContext }))).toBeInstanceOf(ConfigError);
    expect(errorOf(() => engine.execute$({ run: 'r' as unknown as RunContext }))).toMatchObject({ message: expect.stringMatching(/^ChoreographyEngine.execute\$ options: run must be a run context/) });
    expect(errorOf(() => engine.events$({ run: {} } as never))).toMatchObject({ message: expect.stringMatching(/^ChoreographyEngine.events\$ options: run /) });
    expect(errorOf(() => observeChoreography({ spec: fanSpec(), agents: agents(), run: {} } as never))).toMatchObject({ message: expect.stringMatching(/^observeChoreography options: run /) });
    expect(errorOf(() => executeChoreography$({ spec: fanSpec(), agents: agents(), run: 5 as never }))).toMatchObject({ message: expect.stringMatching(/^executeChoreography options: run must be a run context/) });
  });

  it('execute and executeChoreography reject a bad run with ConfigError', async () => {
    const engine = new ChoreographyEngine({ spec: fanSpec(), agents: agents(), logger: silent });
    await expect(engine.execute({ run: {} as RunContext })).rejects.toThrow(/^ChoreographyEngine.execute options: run must be a run context/);
    await expect(executeChoreography({ spec: fanSpec(), agents: agents(), run: {} as RunContext })).rejects.toThrow(/^executeChoreography options: run must be a run context/);
  });

  it('a second run of the same engine is a failed run-end with ChoreographyAlreadyExecutedError, not an error', async () => {
    const engine = new ChoreographyEngine({ spec: fanSpec(), agents: agents(), logger: silent });
    await engine.execute();
    const events = checked(await lastValueFrom(engine.events$().pipe(toArray())));
    expect(events.map(brief)).toEqual([expect.stringMatching(/^run-start@\d+ choreography$/), expect.stringMatching(/^run-end@\d+ :ChoreographyAlreadyExecutedError$/)]);
  });

  it('without a run, agents get no run context and the result is the same', async () => {
    const contexts: unknown[] = [];
    const spy = (id: string) =>
      defineAgent(id, async (_input, options) => {
        contexts.push(options.run);
        return id;
      });
    const result = await new ChoreographyEngine({ spec: fanSpec(), agents: { l: spy('l'), r: spy('r'), a: spy('a') } }).execute({ input: 'x' });
    expect(contexts).toEqual([undefined, undefined, undefined]);
    expect(result.completedCount).toBe(3);
  });
});
