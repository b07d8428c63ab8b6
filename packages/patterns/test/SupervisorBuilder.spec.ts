import { map } from 'rxjs';
import { scriptedAgent } from '@rxagents/testing';
import { AgentRef, EmptyAnswerError, Patterns, UnknownParticipantError, type ExecutionResult, type SupervisorState } from '@rxagents/patterns';
import { countLargeArrayCopies, debater, testScheduler } from './helpers';

describe('Patterns.supervisor', () => {
  it('dispatches a ComposedAgent debate that runs over its own channel, as one sub-task', () => {
    const judge = scriptedAgent('judge', (input) => (/skeptic r2/.test(input) ? 'CONVERGED' : 'CONTINUE'));
    const panel = Patterns.debate({ agents: [debater('optimist', 10), debater('skeptic', 10)], maxRounds: 5, judge })
      .overChannel()
      .asAgent('panel', { role: 'debate panel' });
    const lead = scriptedAgent('lead', (input) =>
      /optimist r1/.test(input) ? { reply: 'FINAL: the panel agrees', delay: 1 } : { reply: 'DELEGATE panel: Should we adopt RxJS 8?', delay: 1 },
    );
    testScheduler().run(({ expectObservable }) => {
      const result$ = Patterns.supervisor({ supervisor: lead, workers: [panel] })
        .snapshots$('Decide on the RxJS upgrade')
        .pipe(map((r) => (r.status === 'running' ? `${r.state.steps.length}${r.state.pending?.worker ?? '-'}` : `${r.status}:${r.output}`)));
      // lead at 1 delegates; the panel debates two rounds of two 10 ms turns (ends at 41); lead answers at 42.
      expectObservable(result$).toBe('1ms a 39ms b (cz|)', { a: '0panel', b: '1-', c: '1-', z: 'completed:the panel agrees' });
    });
    expect(AgentRef.isComposed(panel) && panel.model.backend !== undefined).toBe(true);
    expect(lead.inputs[1]).toContain('optimist: optimist r1');
  });

  it.each([
    ['direct', ''],
    ['channel', ''],
    ['direct', '  \n'],
    ['channel', 'FINAL:'],
    ['direct', 'final:   '],
  ] as const)('a supervisor reply with no answer fails the run with EmptyAnswerError, not a completed run with an empty output (%s, %j)', async (mode, empty) => {
    let asked = 0;
    const lead = scriptedAgent('lead', () => (asked++ === 0 ? 'DELEGATE researcher: dig' : empty));
    const researcher = scriptedAgent('researcher', 'facts');
    const builder = Patterns.supervisor({ supervisor: lead, workers: [researcher] });
    const result = await (mode === 'direct' ? builder : builder.overChannel()).execute('task');
    expect([result.status, result.output, result.iterations, result.error instanceof EmptyAnswerError, result.reason]).toEqual([
      'failed',
      '',
      3,
      true,
      `lead gave no answer: its reply ${JSON.stringify(empty)} is neither a delegation nor a final answer with text`,
    ]);
    expect(result.state.steps).toEqual([{ worker: 'researcher', instruction: 'dig', output: 'facts' }]);
  });

  it.each(['direct', 'channel'] as const)('at maxSteps, gives the supervisor one last turn to answer from the workers\' results (%s)', async (mode) => {
    // A supervisor that keeps delegating until it is told no delegation is left.
    const lead = scriptedAgent('lead', (input) =>
      /No delegations left/.test(input) ? `FINAL: ${[...input.matchAll(/Q(\d) revenue \+\d+%/g)].map((m) => m[0]).join(', ')}` : 'DELEGATE researcher: next quarter',
    );
    let quarter = 0;
    const researcher = scriptedAgent('researcher', () => `Q${++quarter} revenue +${quarter * 5}%`);
    const builder = Patterns.supervisor({ supervisor: lead, workers: [researcher], maxSteps: 2 });
    const result = await (mode === 'direct' ? builder : builder.overChannel()).execute('Summarise the year');
    expect([result.status, result.output, result.reason, result.iterations, result.state.steps.length]).toEqual([
      'completed',
      'Q1 revenue +5%, Q2 revenue +10%',
      'lead gave a final answer at the limit of 2 delegations',
      5,
      2,
    ]);
    expect(result.results.map((r) => r.agentId)).toEqual(['lead', 'researcher', 'lead', 'researcher', 'lead']);
  });

  it.each(['direct', 'channel'] as const)('escalates when the supervisor still delegates on its last turn, without calling the worker (%s)', async (mode) => {
    const lead = scriptedAgent('lead', 'DELEGATE worker: again');
    const worker = scriptedAgent('worker', 'done');
    const builder = Patterns.supervisor({ supervisor: lead, workers: [worker], maxSteps: 2 });
    const result = await (mode === 'direct' ? builder : builder.overChannel()).execute('loop');
    expect([result.status, result.reason, result.output, result.state.steps.length, result.state.pending]).toEqual([
      'escalated',
      'no final answer after 2 delegations',
      '',
      2,
      { worker: 'worker', instruction: 'again' },
    ]);
    expect([lead.inputs.length, worker.inputs.length]).toEqual([3, 2]);
  });

  it('tells a custom prompt how many delegations are left', async () => {
    const seen: number[] = [];
    const lead = scriptedAgent('lead', (input) => (input === 'last turn' ? 'FINAL: done' : 'DELEGATE worker: go'));
    const prompt = (state: SupervisorState): string => (seen.push(state.remainingSteps), state.remainingSteps === 0 ? 'last turn' : 'delegate or answer');
    const result = await Patterns.supervisor({ supervisor: lead, workers: [scriptedAgent('worker', 'ok')], maxSteps: 2, prompt }).execute('t');
    expect([result.status, result.output, seen]).toEqual(['completed', 'done', [2, 1, 0]]);
  });

  it('fails when the supervisor names an unknown worker', async () => {
    const result = await Patterns.supervisor({ supervisor: scriptedAgent('lead', 'DELEGATE ghost: boo'), workers: [scriptedAgent('w', 'x')] }).execute('t');
    expect(result.status).toBe('failed');
    expect(result.error).toBeInstanceOf(UnknownParticipantError);
  });
});

describe('Patterns.supervisor snapshots', () => {
  it('copies no step per delegation: 1,500 delegations, each snapshot reads as it was', () => {
    const lead = scriptedAgent('lead', 'DELEGATE worker: more');
    const worker = scriptedAgent('worker', 'done');
    const snapshots: ExecutionResult<SupervisorState>[] = [];
    const copies = countLargeArrayCopies(1_000, () => {
      Patterns.supervisor({ supervisor: lead, workers: [worker], maxSteps: 1_500, prompt: () => 'next?' })
        .snapshots$('task')
        .subscribe((snapshot) => snapshots.push(snapshot));
    });
    expect(copies).toBe(0);
    const final = snapshots.at(-1) as ExecutionResult<SupervisorState>;
    expect([final.status, final.state.steps.length, snapshots[3]?.state.steps.length]).toEqual(['escalated', 1_500, 2]);
  });
});
