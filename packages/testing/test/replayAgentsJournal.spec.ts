import { VirtualTimeScheduler } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { ConfigError, MAX_DELAY_MS, MemoryRunStore, stream, type RunEvent, type RunRecord } from '@rxagents/core';
import { replayAgents, type ReplayAgent } from '@rxagents/testing';

const testScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

const base = { runId: 'r1', parentCallId: 'run' } as const;
const journal: RunEvent[] = [
  { type: 'run-start', runId: 'r1', callId: 'run', parentCallId: null, at: 100, name: 'story', input: 'go' },
  { type: 'call-start', ...base, callId: 'c1', at: 110, agentId: 'writer', input: 'go' },
  { type: 'text-delta', ...base, callId: 'c1', at: 112, agentId: 'writer', delta: 'Once ' },
  { type: 'text-delta', ...base, callId: 'c1', at: 115, agentId: 'writer', delta: 'upon' },
  { type: 'call-end', ...base, callId: 'c1', at: 116, agentId: 'writer', durationMs: 6 },
  { type: 'run-end', runId: 'r1', callId: 'run', parentCallId: null, at: 116, success: true, durationMs: 16 },
];
const records: RunRecord[] = journal.map((event, seq) => ({ seq, event }));

const issuesOf = (run: () => unknown): unknown => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues.map((issue) => `${issue.path} ${issue.rule}`);
  }
  throw new Error('no ConfigError');
};

describe('replayAgents reads a journal in every form a run gives it', () => {
  const answersAsRecorded = (writer: ReplayAgent) =>
    testScheduler().run(({ expectObservable }) => {
      expectObservable(stream(writer, 'go')).toBe('--a--b|', { a: 'Once ', b: 'upon' });
    });

  it('events: the root, the run id, the events and each call', () => {
    const replay = replayAgents(journal);
    expect(replay).toMatchObject({ runId: 'r1', root: { name: 'story', input: 'go', inputOmitted: false }, events: journal });
    expect(replay.agent('writer').recorded).toEqual([
      {
        agentId: 'writer',
        callId: 'c1',
        parentCallId: 'run',
        input: 'go',
        inputOmitted: false,
        at: 110,
        deltas: [
          { delta: 'Once ', afterMs: 2 },
          { delta: 'upon', afterMs: 5 },
        ],
        end: { kind: 'completed', afterMs: 6 },
      },
    ]);
    answersAsRecorded(replay.agent('writer'));
  });

  it('records ({ seq, event }), as a store holds them', () => {
    answersAsRecorded(replayAgents(records).agent('writer'));
  });

  it('an AsyncIterable of records (RunStore.read): a Promise of the replay', async () => {
    const store = new MemoryRunStore();
    await store.append('r1', journal);
    const replay = await replayAgents(store.read('r1'));
    expect(replay.events).toEqual(journal);
    answersAsRecorded(replay.agent('writer'));
  });
});

describe('replayAgents on a scheduler of your own', () => {
  it('replays a long call, one delta a millisecond, to its end on a VirtualTimeScheduler', () => {
    const call = { runId: 'r1', callId: 'c1', parentCallId: 'run', agentId: 'writer' } as const;
    const long: RunEvent[] = [journal[0] as RunEvent, { type: 'call-start', ...call, at: 0, input: 'go' }];
    for (let at = 1; at <= 20_000; at++) long.push({ type: 'text-delta', ...call, at, delta: `${at} ` });
    long.push({ type: 'call-end', ...call, at: 20_001, durationMs: 20_001 });
    const clock = new VirtualTimeScheduler();
    const seen: number[] = [];
    let completedAt = -1;
    stream(replayAgents(long, { scheduler: clock }).agent('writer'), 'go').subscribe({
      next: (chunk) => seen.push(Number.parseInt(chunk, 10) === clock.now() ? 1 : 0),
      complete: () => (completedAt = clock.now()),
    });
    clock.flush();
    expect(seen).toHaveLength(20_000);
    expect(seen.every((onTime) => onTime === 1)).toBe(true);
    expect(completedAt).toBe(20_001);
  });
});

describe('replayAgents and the journal of a resumed run', () => {
  const call = { runId: 'r1', parentCallId: 'run', agentId: 'writer' } as const;
  const interrupted = { name: 'CallInterruptedError', message: 'the process stopped', code: 'CALL_INTERRUPTED', retryable: true };
  const resumed: RunEvent[] = [
    journal[0] as RunEvent,
    { type: 'call-start', ...call, callId: 'run/0', at: 110, input: 'go' },
    { type: 'text-delta', ...call, callId: 'run/0', at: 111, delta: 'Half a' },
    { type: 'call-error', ...call, callId: 'run/0', at: 111, error: interrupted, durationMs: 1 },
    { type: 'call-start', ...call, callId: 'run/0#2', at: 90_000, input: 'go' },
    { type: 'text-delta', ...call, callId: 'run/0#2', at: 90_002, delta: 'Once ' },
    { type: 'text-delta', ...call, callId: 'run/0#2', at: 90_005, delta: 'upon' },
    { type: 'call-end', ...call, callId: 'run/0#2', at: 90_006, durationMs: 6 },
  ];

  it('a call interrupted by a stopped process and run again answers as its later attempt', () => {
    const writer = replayAgents(resumed).agent('writer');
    expect(writer.recorded.map((recorded) => recorded.callId)).toEqual(['run/0#2']);
    testScheduler().run(({ expectObservable }) => {
      expectObservable(stream(writer, 'go')).toBe('--a--b|', { a: 'Once ', b: 'upon' });
    });
  });

  it('an interrupted call with no later attempt never ends', () => {
    const writer = replayAgents(resumed.slice(0, 4)).agent('writer');
    expect(writer.recorded.map((recorded) => recorded.end.kind)).toEqual(['interrupted']);
    testScheduler().run(({ expectObservable }) => {
      expectObservable(stream(writer, 'go'), '^ 100ms !').toBe('-a', { a: 'Half a' });
    });
  });
});

describe('replayAgents refuses what is not a journal, naming what is wrong', () => {
  it.each([['a string', 'events'], ['an object', { events: journal }], ['null', null], ['a number', 5]])('%s', (_name, value) => {
    expect(issuesOf(() => replayAgents(value as never))).toEqual([
      'journal must be an array of run events or run records, or an AsyncIterable of them (as RunStore.read yields)',
    ]);
  });

  it('an empty journal, and entries that are neither events nor records', () => {
    expect(issuesOf(() => replayAgents([]))).toEqual(['journal must hold at least the root run-start']);
    expect(issuesOf(() => replayAgents([journal[0], 5, 'text-delta', [journal[1]]] as never))).toEqual([
      'journal.1 must be a run event or a run record { seq, event }',
      'journal.2 must be a run event or a run record { seq, event }',
      'journal.3 must be a run event or a run record { seq, event }',
    ]);
  });

  it('a malformed event, checked with RunEventSchema', () => {
    const bad = [...journal];
    bad[2] = { ...journal[2], at: '112' } as never;
    bad[3] = { ...journal[3], colour: 'red' } as never;
    bad[4] = { ...journal[4], type: 'call-done' } as never;
    expect(issuesOf(() => replayAgents(bad))).toEqual([
      'journal.2.at must be a number',
      'journal.3.colour is not a known option',
      expect.stringMatching(/^journal\.4\.type is invalid/),
    ]);
  });

  it('a malformed record, or records out of sequence', () => {
    const bad: unknown[] = [records[0], { seq: 1, event: { ...journal[1], at: null } }, records[3], records[4], { ...records[5], extra: true }];
    expect(issuesOf(() => replayAgents(bad as never))).toEqual([
      'journal.1.event.at must be a number',
      'journal.2.seq must be 2, one more than the record before (a record is missing or out of order)',
      'journal.4.extra is not a known option',
    ]);
  });

  it('a journal that does not open with its root run-start, or holds another run or a second root', () => {
    expect(issuesOf(() => replayAgents(journal.slice(1)))).toEqual(['journal.0 must be the root run-start (type run-start, parentCallId null)']);
    expect(issuesOf(() => replayAgents([...journal, { ...journal[1], runId: 'r2', callId: 'c9' } as RunEvent, journal[0] as RunEvent]))).toEqual([
      'journal.6.runId must be the root run-start\'s run id "r1" (a journal holds one run)',
      'journal.7.parentCallId must not be null: a journal has one root run-start, its first event',
    ]);
  });

  it("call events that do not follow their call's start", () => {
    const at = (index: number, change: Partial<RunEvent>): RunEvent => ({ ...journal[index], ...change }) as RunEvent;
    expect(
      issuesOf(() =>
        replayAgents([
          journal[0] as RunEvent,
          at(2, { callId: 'nope' }),
          journal[1] as RunEvent,
          at(1, {}),
          at(2, { agentId: 'critic' } as Partial<RunEvent>),
          at(3, { at: 90 }),
          journal[4] as RunEvent,
          at(3, {}),
        ]),
      ),
    ).toEqual([
      'journal.1.callId must be the callId of an earlier call-start (a text-delta belongs to its call)',
      'journal.3.callId must not repeat the callId of an earlier call-start',
      'journal.4.agentId must be "writer", the agentId of its call-start',
      'journal.5.at must not be earlier than the event before it in its call (110)',
      'journal.7 must not follow the end of its call "c1"',
    ]);
  });

  it('a call that waits longer between two of its events than a timer can', () => {
    const late = { ...journal[2], at: 110 + MAX_DELAY_MS + 1 } as RunEvent;
    expect(issuesOf(() => replayAgents([journal[0] as RunEvent, journal[1] as RunEvent, late]))).toEqual([
      `journal.2.at must be at most ${MAX_DELAY_MS} ms after the event before it in its call (110), the longest a timer can wait`,
    ]);
  });

  it('an AsyncIterable that holds a bad event rejects with the ConfigError', async () => {
    async function* entries(): AsyncGenerator<unknown> {
      yield journal[0];
      yield { ...journal[1], agentId: 7 };
    }
    await expect(replayAgents(entries() as AsyncIterable<RunEvent>)).rejects.toThrow(/replayAgents: journal\.1\.agentId must be a string/);
  });

  it('unknown or invalid options', () => {
    expect(() => replayAgents(journal, { schduler: undefined } as never)).toThrow(/replayAgents: options\.schduler is not a known option \(did you mean scheduler\?\)/);
    expect(() => replayAgents(journal, { matchInput: 'yes' } as never)).toThrow(/options\.matchInput must be a boolean/);
    expect(() => replayAgents(journal, { scheduler: {} } as never)).toThrow(/options\.scheduler must be an RxJS scheduler/);
  });

  it('bad options with an AsyncIterable reject before the journal is read', async () => {
    let read = false;
    async function* entries(): AsyncGenerator<RunEvent> {
      read = true;
      yield journal[0] as RunEvent;
    }
    await expect(replayAgents(entries(), { matchInput: 1 } as never)).rejects.toThrow(/replayAgents: options\.matchInput must be a boolean/);
    expect(read).toBe(false);
  });
});
