import { asyncScheduler, lastValueFrom, map, type Observable, toArray } from 'rxjs';
import { ConfigError, defineAgent, emptyRunView, observeRun, reduceRunView, type RunContext, type RunEvent } from '@rxagents/core';
import { StreamingChannel } from '@rxagents/streaming';
import { scriptedAgent } from '@rxagents/testing';
import { ConversationOrchestrator, Patterns, TerminationCondition, type PostedMessage } from '@rxagents/patterns';
import { testScheduler } from './helpers';
import { brief, expectValidEvents, ofType } from './runEventsHelpers';

/** Runs `events$` on virtual time to the end and returns what it said, briefly. */
function onVirtualTime(events$: () => Observable<RunEvent>): { readonly events: RunEvent[]; readonly briefs: string[] } {
  const events: RunEvent[] = [];
  testScheduler().run(({ flush }) => {
    events$().subscribe((event) => events.push(event));
    flush();
  });
  expectValidEvents(events);
  return { events, briefs: events.map(brief) };
}

describe('a pattern run as run events', () => {
  it('streams each token as the agent emits it: 3 chunks at 100/200/300 ms give 3 text-deltas at 100/200/300 ms', () => {
    testScheduler().run(({ expectObservable }) => {
      const pro = scriptedAgent('pro', { chunks: ['tok0 ', 'tok1 ', 'tok2'], delay: 100, interval: 100 });
      const con = scriptedAgent('con', { reply: 'no', delay: 10 });
      const events$ = Patterns.debate({ agents: [pro, con], maxRounds: 1 }).events$('Ship?').pipe(map(brief));
      expectObservable(events$).toBe('(ab) 96ms c 99ms d 99ms (efgh) 4ms (ijklmn|)', {
        a: 'run-start@0 debate',
        b: 'call-start@0 pro',
        c: 'text-delta@100 pro:tok0 ',
        d: 'text-delta@200 pro:tok1 ',
        e: 'text-delta@300 pro:tok2',
        f: 'call-end@300 pro',
        g: 'message@300 pro:tok0 tok1 tok2',
        h: 'call-start@300 con',
        i: 'text-delta@310 con:no',
        j: 'call-end@310 con',
        k: 'message@310 con:no',
        l: 'round-end@310 1',
        m: 'termination@310 complete',
        n: 'run-end@310 ok',
      });
    });
  });

  it('over a channel: the same calls, messages, round and termination, a metrics sample of the channel after each post and at the end', () => {
    const pro = scriptedAgent('pro', { chunks: ['a', 'b'], delay: 100, interval: 100 });
    const con = scriptedAgent('con', { reply: 'no', delay: 10 });
    const { events, briefs } = onVirtualTime(() => Patterns.debate({ agents: [pro, con], maxRounds: 1 }).overChannel({ id: 'room' }).events$('Ship?'));
    expect(briefs).toEqual([
      'run-start@0 debate',
      'call-start@0 pro',
      'text-delta@100 pro:a',
      'text-delta@200 pro:b',
      'call-end@200 pro',
      'message@200 pro:ab',
      'metrics@200 room',
      'call-start@200 con',
      'text-delta@210 con:no',
      'call-end@210 con',
      'message@210 con:no',
      'round-end@210 1',
      'metrics@210 room',
      'termination@210 complete',
      'metrics@210 room',
      'run-end@210 ok',
    ]);
    const [first, second, last] = ofType(events, 'metrics');
    expect(first?.metrics).toMatchObject({ channelId: 'room', emitted: 1, delivered: 1, dropped: 0 });
    expect(second?.metrics).toMatchObject({ channelId: 'room', emitted: 2, delivered: 2, dropped: 0 });
    expect(last?.metrics).toMatchObject({ channelId: 'room', emitted: 2, delivered: 2, dropped: 0, dropRate: 0 });
  });

  it('nests every event under the pattern node; the judge is an agent call of the debate', () => {
    for (const overChannel of [false, true]) {
      const judge = scriptedAgent('judge', { reply: 'CONVERGED: agreed', delay: 5 });
      const base = Patterns.debate({ agents: [scriptedAgent('pro', 'yes'), scriptedAgent('con', 'yes')], maxRounds: 3, judge });
      const { events, briefs } = onVirtualTime(() => (overChannel ? base.overChannel() : base).events$('Ship?'));
      const root = events[0];
      expect(root?.parentCallId).toBeNull();
      // The debate's own events belong to its node; every call nests under it.
      expect(events.every((event) => (event.callId === root?.callId && event.parentCallId === null) || event.parentCallId === root?.callId)).toBe(true);
      expect(new Set(events.map((event) => event.runId))).toEqual(new Set([root?.runId]));
      expect(briefs.filter((text) => !text.startsWith('metrics'))).toEqual([
        'run-start@0 debate',
        'call-start@0 pro',
        'text-delta@0 pro:yes',
        'call-end@0 pro',
        'message@0 pro:yes',
        'call-start@0 con',
        'text-delta@0 con:yes',
        'call-end@0 con',
        'message@0 con:yes',
        'round-end@0 1',
        'call-start@0 judge',
        'text-delta@5 judge:CONVERGED: agreed',
        'call-end@5 judge',
        'termination@5 complete',
        'run-end@5 ok',
      ]);
      expect(judge.calls[0]?.options.run?.callId).toBe(ofType(events, 'call-start').find((call) => call.agentId === 'judge')?.callId);
    }
  });

  it("a supervisor's decisions are agent calls; a pattern as its worker appears under the worker's call, with no user code", () => {
    const lead = scriptedAgent('lead', (input) => (input.includes('panel <-') ? 'FINAL: ship' : 'DELEGATE panel: vote on it'));
    const panel = Patterns.voting({ agents: [scriptedAgent('a', 'yes'), scriptedAgent('b', 'yes')] }).overChannel({ id: 'votes' }).asAgent('panel');
    const { events } = onVirtualTime(() => Patterns.supervisor({ supervisor: lead, workers: [panel] }).events$('Release?'));
    const starts = events.filter((event) => event.type === 'run-start' || event.type === 'call-start').map(brief);
    expect(starts).toEqual(['run-start@0 supervisor', 'call-start@0 lead', 'call-start@0 panel', 'run-start@0 voting', 'call-start@0 a', 'call-start@0 b', 'call-start@0 lead']);
    const [root, inner] = ofType(events, 'run-start');
    const panelCall = ofType(events, 'call-start').find((call) => call.agentId === 'panel');
    expect(panelCall?.parentCallId).toBe(root?.callId);
    expect(inner?.parentCallId).toBe(panelCall?.callId);
    const under = new Set(events.filter((event) => event.parentCallId === inner?.callId).map((event) => event.type));
    expect(under).toEqual(new Set(['call-start', 'text-delta', 'call-end']));
    const own = new Set(events.filter((event) => event.callId === inner?.callId).map((event) => event.type));
    expect(own).toEqual(new Set(['run-start', 'message', 'round-end', 'termination', 'metrics', 'run-end']));
    expect(events.filter((event) => event.callId === inner?.callId).every((event) => event.parentCallId === panelCall?.callId)).toBe(true);
    const view = events.reduce(reduceRunView, emptyRunView);
    expect(view.status).toBe('completed');
    expect(view.nodes.find((node) => node.callId === panelCall?.callId)?.text).toBe('yes');
    expect(view.nodes.find((node) => node.callId === root?.callId)?.text).toBe('ship');
  });

  it('unsubscribing from events$ aborts every running agent', () => {
    for (const overChannel of [false, true]) {
      const voters = ['a', 'b', 'c'].map((id) => scriptedAgent(id, { reply: 'yes', delay: 1_000 }));
      const base = Patterns.voting({ agents: voters });
      const seen: string[] = [];
      testScheduler().run(({ cold }) => {
        const subscription = (overChannel ? base.overChannel() : base).events$('Ship?').subscribe((event) => seen.push(brief(event)));
        cold('500ms x').subscribe(() => subscription.unsubscribe());
      });
      expect(voters.map((voter) => voter.abortCount)).toEqual([1, 1, 1]);
      expect(voters.every((voter) => voter.calls[0]?.options.signal.aborted === true)).toBe(true);
      expect(seen).toEqual(['run-start@0 voting', 'call-start@0 a', 'call-start@0 b', 'call-start@0 c']);
    }
  });

  it('unsubscribing from a supervisor\'s events$ aborts the agents of a pattern running as its worker', () => {
    const voters = ['a', 'b'].map((id) => scriptedAgent(id, { reply: 'yes', delay: 1_000 }));
    const panel = Patterns.voting({ agents: voters }).overChannel().asAgent('panel');
    const lead = scriptedAgent('lead', 'DELEGATE panel: vote');
    const seen: string[] = [];
    testScheduler().run(({ cold }) => {
      const subscription = Patterns.supervisor({ supervisor: lead, workers: [panel] }).events$('Release?').subscribe((event) => seen.push(brief(event)));
      cold('500ms x').subscribe(() => subscription.unsubscribe());
    });
    expect(voters.map((voter) => voter.abortCount)).toEqual([1, 1]);
    expect(seen.slice(-4)).toEqual(['call-start@0 panel', 'run-start@0 voting', 'call-start@0 a', 'call-start@0 b']);
  });

  it('execute$ and snapshots$ with { run } report into a run of yours; a failed run ends with the error', async () => {
    const flaky = defineAgent('flaky', async () => {
      throw new Error('model down');
    });
    const sequence = Patterns.sequence({ agents: [defineAgent('draft', async () => 'v1'), flaky] });
    const events = await lastValueFrom(observeRun('job', 'go', (run) => sequence.execute$('go', { run })).pipe(toArray()));
    expectValidEvents(events);
    expect(events.map(brief).map((text) => text.replace(/@\d+/, ''))).toEqual([
      'run-start job',
      'run-start sequence',
      'call-start draft',
      'text-delta draft:v1',
      'call-end draft',
      'message draft:v1',
      'round-end 1',
      'call-start flaky',
      'call-error flaky:AgentError',
      'termination failed',
      'run-end failed:AgentError',
      'run-end ok',
    ]);
    expect(ofType(events, 'run-end')[0]?.error?.message).toContain('model down');
    const snapshots = await lastValueFrom(observeRun('job', 'go', (run) => sequence.snapshots$('go', { run })).pipe(toArray()));
    expect(snapshots.map((event) => event.type)).toEqual(events.map((event) => event.type));
  });

  it('execute(input, { run }) reports into the run and resolves as without it', async () => {
    const vote = Patterns.voting({ agents: [defineAgent('a', async () => 'yes')] });
    const seen: RunEvent[] = [];
    const run: RunContext = { runId: 'r1', callId: null, parentCallId: null, scheduler: asyncScheduler, emit: (event) => seen.push(event) };
    const result = await vote.execute('x', { run });
    expect(result.status).toBe('completed');
    expect(result.output).toBe('yes');
    expect(seen.map((event) => event.type)).toEqual(['run-start', 'call-start', 'text-delta', 'call-end', 'message', 'round-end', 'termination', 'run-end']);
  });

  it('a bad run option is a ConfigError naming it', async () => {
    const vote = Patterns.voting({ agents: [defineAgent('a', async () => 'yes')] });
    expect(() => vote.execute$('x', { run: 'r1' as never })).toThrow(ConfigError);
    expect(() => vote.snapshots$('x', { runn: 1 } as never)).toThrow(/runn/);
    await expect(vote.execute('x', { run: {} as never })).rejects.toThrow(/run/);
    expect(() => vote.asAgent('panel').execute$('x', { run: 7 as never })).toThrow(ConfigError);
  });

  it('a ComposedAgent stopped by stopWhen says so as its termination', () => {
    const pro = scriptedAgent('pro', { reply: 'yes', delay: 1 });
    const con = scriptedAgent('con', { reply: 'no', delay: 1 });
    const panel = Patterns.debate({ agents: [pro, con], maxRounds: 10 }).asAgent('panel', { stopWhen: (snapshot) => snapshot.state.messages.length >= 3 });
    const { events } = onVirtualTime(() => panel.events$('Ship?'));
    expect(ofType(events, 'termination').map((event) => `${event.decision}: ${event.reason}`)).toEqual(['complete: stopped by observer']);
    expect(ofType(events, 'message')).toHaveLength(3);
    expect(ofType(events, 'run-end')[0]).toMatchObject({ success: true, output: expect.stringContaining('pro: yes') });
  });
});

describe('ConversationOrchestrator run events', () => {
  const orchestrator = () =>
    ConversationOrchestrator.create({
      participants: [scriptedAgent('alice', { reply: 'Friday?', delay: 10 }), scriptedAgent('bob', { reply: 'Friday. TERMINATE', delay: 20 })],
      termination: TerminationCondition.textMention('TERMINATE'),
      pattern: 'planning',
    });

  it('events$: calls, a message per folded message, the round, the termination', () => {
    const { briefs } = onVirtualTime(() => orchestrator().events$('Release day?', StreamingChannel.create<PostedMessage>()));
    expect(briefs).toEqual([
      'run-start@0 planning',
      'call-start@0 alice',
      'text-delta@10 alice:Friday?',
      'call-end@10 alice',
      'message@10 alice:Friday?',
      'call-start@10 bob',
      'text-delta@30 bob:Friday. TERMINATE',
      'call-end@30 bob',
      'message@30 bob:Friday. TERMINATE',
      'round-end@30 1',
      'termination@30 complete',
      'run-end@30 ok',
    ]);
  });

  it('conversation$(topic, channel, { run }) gives the same conversation events and reports it into the run', () => {
    const conversation: string[] = [];
    const { briefs } = onVirtualTime(() =>
      observeRun('outer', 'x', (run) =>
        orchestrator()
          .conversation$('Release day?', StreamingChannel.create<PostedMessage>(), { run })
          .pipe(map((event) => conversation.push(event.type))),
      ),
    );
    expect(conversation).toEqual(['message', 'message', 'finished']);
    expect(briefs[1]).toBe('run-start@0 planning');
    expect(briefs.slice(-2)).toEqual(['run-end@30 ok', 'run-end@30 ok']);
  });
});
