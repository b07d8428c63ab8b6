import { TestScheduler } from 'rxjs/testing';
import { concat, filter, map, merge, type Observable, takeUntil, timer } from 'rxjs';
import { AgentError, defineAgent, invoke$, observeRun, stream, type Agent, type RunContext, type RunEvent } from '@rxagents/core';
import { DefaultHandoff, HandoffChain, HandoffContext } from '@rxagents/handoff';
import { Patterns } from '@rxagents/patterns';
import { hangingAgent, ReplayedCallError, replayAgents, ReplayExhaustedError, ReplayInputMismatchError, scriptedAgent, type JournalReplay } from '@rxagents/testing';

const testScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

type Body = (run: RunContext) => Observable<unknown>;

/** Runs `body` as a run on a fresh TestScheduler and returns its events (with `runId`, the same id each time). */
function record(name: string, input: string, body: Body, runId?: string): RunEvent[] {
  const events: RunEvent[] = [];
  testScheduler().run(({ flush }) => {
    observeRun(name, input, body, runId === undefined ? {} : { runId }).subscribe((event) => events.push(event));
    flush();
  });
  return events;
}

/** Runs the recorded root again with `body` built from the replay's agents, on a fresh TestScheduler. */
function rerun(replay: JournalReplay, body: Body): RunEvent[] {
  return record(replay.root.name, replay.root.input, body, replay.runId);
}

/** Node ids are random UUIDs in a run without a store: numbered by first appearance, the rest kept as is. */
function canonical(events: readonly RunEvent[]): RunEvent[] {
  const ids = new Map<string, string>();
  const id = (callId: string): string => {
    const known = ids.get(callId);
    if (known !== undefined) return known;
    const named = `node-${ids.size}`;
    ids.set(callId, named);
    return named;
  };
  return events.map((event) => ({ ...event, callId: id(event.callId), parentCallId: event.parentCallId === null ? null : id(event.parentCallId) }));
}

const deltasOf = (events: readonly RunEvent[]) => events.flatMap((event) => (event.type === 'text-delta' ? [`${event.at}:${event.agentId}:${event.delta}`] : []));

describe('replayAgents replays a recorded run exactly, on virtual time', () => {
  const chainOf = (agents: (id: string) => Agent) =>
    HandoffChain.builder().add(agents('intake')).add(agents('billing')).add(agents('writer')).build();
  const live = new Map<string, Agent>([
    ['intake', scriptedAgent('intake', 'unused: a chain starts from its first agent')],
    ['billing', scriptedAgent('billing', { chunks: ['Invoice ', '42 ', 'is paid'], delay: 3, interval: 4 })],
    ['writer', scriptedAgent('writer', { marbles: '--a-----(bc)---|', values: { a: 'Dear ', b: 'customer', c: ', ' } })],
  ]);
  const chainRun = (agents: (id: string) => Agent): Body => (run) => chainOf(agents).execute$(new DefaultHandoff(), HandoffContext.of('ticket-7'), { run });

  it('a chain: the same events, every delta at its recorded time', () => {
    const recorded = record('support', 'ticket-7', chainRun((id) => live.get(id) as Agent));
    const replay = replayAgents(recorded);
    expect(replay.root).toEqual({ name: 'support', input: 'ticket-7', inputOmitted: false });
    expect([...replay.agents.keys()]).toEqual(['billing', 'writer']);

    const replayed = rerun(replay, chainRun((id) => replay.agent(id)));

    expect(canonical(replayed)).toEqual(canonical(recorded));
    expect(deltasOf(replayed)).toEqual(['3:billing:Invoice ', '7:billing:42 ', '11:billing:is paid', '13:writer:Dear ', '19:writer:customer', '19:writer:, ']);
    expect(replay.agent('billing').remaining).toBe(0);
    expect(replay.agent('writer').inputs).toEqual(replay.agent('writer').recorded.map((call) => call.input));
  });

  it('a debate: every turn answers as recorded, in the recorded order and times', () => {
    const debateRun = (agents: (id: string) => Agent): Body => (run) =>
      Patterns.debate({ agents: [agents('pro'), agents('con')], maxRounds: 2 }).execute$('Ship on Friday?', { run });
    const pro = scriptedAgent('pro', [
      { match: /Round 1/, answer: { chunks: ['Yes, ', 'tests pass'], delay: 6, interval: 5 } },
      { match: /Round 2/, answer: { reply: 'Still yes', delay: 2 } },
    ]);
    const con = scriptedAgent('con', { marbles: '---a--b|', values: { a: 'No: ', b: 'Friday' } });
    const recorded = record('debate', 'Ship on Friday?', debateRun((id) => (id === 'pro' ? pro : con)));

    const replay = replayAgents(recorded);
    expect(replay.agent('pro').recorded.map((call) => call.deltas.map((delta) => delta.afterMs))).toEqual([[6, 11], [2]]);
    const replayed = rerun(replay, debateRun((id) => replay.agent(id)));

    expect(canonical(replayed)).toEqual(canonical(recorded));
    expect(replayed.filter((event) => event.type === 'message').map((event) => event.type === 'message' && `${event.at} ${event.content}`)).toEqual([
      '11 Yes, tests pass',
      '18 No: Friday',
      '20 Still yes',
      '27 No: Friday',
    ]);
  });

  it('marbles: a replay agent answers on its recorded frames, and a replayed run streams its deltas on them', () => {
    const recorded = record('support', 'ticket-7', chainRun((id) => live.get(id) as Agent));
    testScheduler().run(({ expectObservable }) => {
      const replay = replayAgents(recorded);
      const writer = replay.agent('writer');
      const [call] = writer.recorded;
      expectObservable(stream(writer, call?.input ?? '')).toBe('--a-----(bc)---|', { a: 'Dear ', b: 'customer', c: ', ' });
    });
    testScheduler().run(({ expectObservable }) => {
      const replay = replayAgents(recorded);
      const deltas = observeRun(replay.root.name, replay.root.input, chainRun((id) => replay.agent(id)), { runId: replay.runId }).pipe(
        filter((event) => event.type === 'text-delta'),
        map((event) => (event.type === 'text-delta' ? event.delta : '')),
      );
      expectObservable(deltas).toBe('---a---b---c-d-----(ef)---|', { a: 'Invoice ', b: '42 ', c: 'is paid', d: 'Dear ', e: 'customer', f: ', ' });
    });
  });

  it('concurrent calls interleave their deltas as recorded', () => {
    const both = (agents: (id: string) => Agent): Body => (run) => merge(stream(agents('left'), 'go', { run }), stream(agents('right'), 'go', { run }));
    const left = scriptedAgent('left', { chunks: ['l1', 'l2', 'l3'], delay: 2, interval: 4 });
    const right = scriptedAgent('right', { chunks: ['r1', 'r2'], delay: 3, interval: 3 });
    const recorded = record('both', 'go', both((id) => (id === 'left' ? left : right)));
    const replay = replayAgents(recorded);
    const replayed = rerun(replay, both((id) => replay.agent(id)));
    expect(canonical(replayed)).toEqual(canonical(recorded));
    expect(deltasOf(replayed)).toEqual(['2:left:l1', '3:right:r1', '6:left:l2', '6:right:r2', '10:left:l3']);
  });

  it('thousands of deltas at one instant replay in order, at that instant', () => {
    const chunks = Array.from({ length: 5_000 }, (_, index) => `${index} `);
    const body: Body = (run) => invoke$(scriptedAgent('bulk', { chunks, delay: 4 }), 'go', { run });
    const recorded = record('bulk', 'go', body);
    const replay = replayAgents(recorded);
    const replayed = rerun(replay, (run) => invoke$(replay.agent('bulk'), 'go', { run }));
    expect(canonical(replayed)).toEqual(canonical(recorded));
    expect(replayed.filter((event) => event.type === 'text-delta')).toHaveLength(5_000);
  });
});

describe('replayAgents replays failures and cut-offs', () => {
  it('a failed call fails again at its recorded time, with the recorded error', () => {
    const body = (writer: Agent): Body => (run) => invoke$(writer, 'Draft it', { run });
    const recorded = record('draft', 'Draft it', body(scriptedAgent('writer', { error: new Error('model overloaded'), delay: 7 })));
    const replay = replayAgents(recorded);
    expect(canonical(rerun(replay, body(replay.agent('writer'))))).toEqual(canonical(recorded));

    testScheduler().run(({ expectObservable }) => {
      const writer = replayAgents(recorded).agent('writer');
      const error = new ReplayedCallError('writer', { name: 'AgentError', message: 'Agent "writer" failed: model overloaded', code: 'AGENT_ERROR', retryable: false });
      expectObservable(stream(writer, 'Draft it')).toBe('-------#', undefined, error);
    });
    let failure: unknown;
    testScheduler().run(({ flush }) => {
      stream(replayAgents(recorded).agent('writer'), 'Draft it').subscribe({ error: (error: unknown) => (failure = error) });
      flush();
    });
    expect(failure).toBeInstanceOf(AgentError);
    expect(failure).toMatchObject({ name: 'AgentError', message: 'Agent "writer" failed: model overloaded', code: 'AGENT_ERROR', retryable: false, agentId: 'writer' });
  });

  it('a timed-out call replays as the same timeout, with or without the timeout in the replayed code', () => {
    const body = (agent: Agent, timeout?: number): Body => (run) => invoke$(agent, 'hello?', { run, ...(timeout === undefined ? {} : { timeout }) });
    const recorded = record('ask', 'hello?', body(hangingAgent('stuck'), 20));
    const replay = replayAgents(recorded);
    expect(canonical(rerun(replay, body(replay.agent('stuck'), 20)))).toEqual(canonical(recorded));

    const again = replayAgents(recorded);
    const withoutTimeout = rerun(again, body(again.agent('stuck')));
    expect(canonical(withoutTimeout)).toEqual(canonical(recorded));
    expect(withoutTimeout.find((event) => event.type === 'call-error')).toMatchObject({
      at: 20,
      error: { name: 'AgentTimeoutError', code: 'AGENT_TIMEOUT', retryable: true, message: 'Agent "stuck" did not answer within 20 ms' },
    });
  });

  it('a cancelled call replays its deltas, then hangs until it is aborted', () => {
    const body = (agent: Agent): Body => (run) => concat(stream(agent, 'go', { run }).pipe(takeUntil(timer(8))), invoke$(scriptedAgent('next', 'done'), 'after', { run }));
    const recorded = record('cut', 'go', body(scriptedAgent('slow', { chunks: ['a', 'b'], delay: 3, interval: 10 })));
    expect(recorded.find((event) => event.type === 'call-error')).toMatchObject({ at: 8, error: { name: 'AbortError' } });

    const replay = replayAgents(recorded);
    expect(replay.agent('slow').recorded[0]?.end).toEqual({ kind: 'cancelled', afterMs: 8, error: { name: 'AbortError', message: "call to agent 'slow' was cancelled" } });
    expect(canonical(rerun(replay, body(replay.agent('slow'))))).toEqual(canonical(recorded));

    const slow = replayAgents(recorded).agent('slow');
    testScheduler().run(({ expectObservable }) => {
      expectObservable(stream(slow, 'go'), '^ 100ms !').toBe('---a');
    });
    expect(slow.abortCount).toBe(1);
  });

  it('a call the journal does not see end, or that was interrupted, hangs', () => {
    const recorded = record('story', 'go', (run) => invoke$(scriptedAgent('writer', { chunks: ['Once ', 'upon'], delay: 2, interval: 3 }), 'go', { run }));
    const cut = recorded.slice(0, recorded.findIndex((event) => event.type === 'text-delta') + 1);
    const start = recorded.find((event) => event.type === 'call-start') as RunEvent;
    const interrupted: RunEvent = {
      type: 'call-error',
      runId: start.runId,
      callId: start.callId,
      parentCallId: start.parentCallId,
      at: 9,
      agentId: 'writer',
      error: { name: 'CallInterruptedError', message: 'the process stopped', code: 'CALL_INTERRUPTED', retryable: true },
      durationMs: 9,
    };
    for (const [journal, kind] of [[cut, 'unfinished'], [[...cut, interrupted], 'interrupted']] as const) {
      const writer = replayAgents(journal).agent('writer');
      expect(writer.recorded[0]?.end.kind).toBe(kind);
      testScheduler().run(({ expectObservable }) => {
        expectObservable(stream(writer, 'go'), '^ 50ms !').toBe('--a', { a: 'Once ' });
      });
    }
  });
});

describe('replayAgents refuses calls it has no recording for', () => {
  const recorded = record('story', 'go', (run) => invoke$(scriptedAgent('writer', { reply: 'Once upon a time', delay: 5 }), 'Tell a story about a lighthouse keeper and a storm', { run }));
  const causeOf = (agent: Agent, input: string): unknown => {
    let cause: unknown;
    testScheduler().run(({ flush }) => {
      stream(agent, input).subscribe({ error: (error: unknown) => (cause = (error as AgentError).cause) });
      flush();
    });
    return cause;
  };

  it('a call past the recorded ones fails with ReplayExhaustedError, naming the agent and the count', () => {
    const writer = replayAgents(recorded).agent('writer');
    expect(causeOf(writer, 'Tell a story about a lighthouse keeper and a storm')).toBeUndefined();
    const cause = causeOf(writer, 'Tell a story about a lighthouse keeper and a storm');
    expect(cause).toBeInstanceOf(ReplayExhaustedError);
    expect(cause).toMatchObject({ code: 'REPLAY_EXHAUSTED', agentId: 'writer', call: 2, recorded: 1, message: 'Agent "writer" was called 2 times, but the journal records 1 call of it' });
  });

  it('an agent the journal never called fails its first call the same way', () => {
    const replay = replayAgents(recorded);
    expect(replay.agents.has('critic')).toBe(false);
    expect(causeOf(replay.agent('critic'), 'Review it')).toMatchObject({ code: 'REPLAY_EXHAUSTED', message: 'Agent "critic" was called once, but the journal records 0 calls of it' });
    expect(replay.agent('critic')).toBe(replay.agent('critic'));
    expect(() => replay.agent(' ')).toThrow(/id must be a non-blank string/);
  });

  it('a call with another input fails with ReplayInputMismatchError showing both, unless matchInput is false', () => {
    const cause = causeOf(replayAgents(recorded).agent('writer'), 'Tell a story about a lighthouse keeper and a ship');
    expect(cause).toBeInstanceOf(ReplayInputMismatchError);
    expect(cause).toMatchObject({
      code: 'REPLAY_INPUT_MISMATCH',
      agentId: 'writer',
      call: 1,
      recordedInput: 'Tell a story about a lighthouse keeper and a storm',
      actualInput: 'Tell a story about a lighthouse keeper and a ship',
      message: 'Agent "writer", call 1: the input differs from the recorded one after 46 equal characters: recorded ..."house keeper and a storm", got ..."house keeper and a ship"',
    });

    testScheduler().run(({ expectObservable }) => {
      expectObservable(invoke$(replayAgents(recorded, { matchInput: false }).agent('writer'), 'anything')).toBe('-----(a|)', { a: 'Once upon a time' });
    });
  });

  it('an input the journal left out is not compared', () => {
    const omitted = recorded.map((event) => (event.type === 'call-start' ? { ...event, input: '', inputOmitted: true as const } : event));
    const writer = replayAgents(omitted).agent('writer');
    expect(writer.recorded[0]).toMatchObject({ input: '', inputOmitted: true });
    testScheduler().run(({ expectObservable }) => {
      expectObservable(invoke$(writer, 'a very long prompt')).toBe('-----(a|)', { a: 'Once upon a time' });
    });
  });
});

describe('replayAgents and calls nested in a call', () => {
  // An agent that asks another agent first (its call is nested under its own), then streams its own text.
  const editorOf = (researcher: Agent): Agent =>
    defineAgent('editor', (input, options) => concat(invoke$(researcher, `facts for: ${input}`, { run: options.run }).pipe(map((facts) => `Edited: ${facts}`)), timer(4).pipe(map(() => ' (end)'))));
  const body = (editor: Agent): Body => (run) => invoke$(editor, 'the storm', { run });
  const recorded = record('edit', 'the storm', body(editorOf(scriptedAgent('researcher', { reply: 'wind 90 km/h', delay: 10 }))));

  it("the outer agent's replay answers with its own deltas only and makes no inner call", () => {
    const replay = replayAgents(recorded);
    expect(replay.agent('editor').recorded[0]?.deltas).toEqual([
      { delta: 'Edited: wind 90 km/h', afterMs: 10 },
      { delta: ' (end)', afterMs: 14 },
    ]);
    const replayed = rerun(replay, body(replay.agent('editor')));
    expect(replayed.map((event) => event.type === 'call-start' && event.agentId).filter(Boolean)).toEqual(['editor']);
    expect(replay.agent('researcher').remaining).toBe(1);
  });

  it("keeping the outer agent's code over the inner agent's replay replays the whole tree", () => {
    const replay = replayAgents(recorded);
    expect(canonical(rerun(replay, body(editorOf(replay.agent('researcher')))))).toEqual(canonical(recorded));
  });
});
