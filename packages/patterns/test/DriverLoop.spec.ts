import { delay, lastValueFrom, map, of, take, toArray } from 'rxjs';
import { defineAgent } from '@rxagents/core';
import { ConversationState, ExecutionModel, OrchestratedDriver, Patterns, PatternBuilder, TerminationCondition, type AgentRef, type ExecutionResult } from '@rxagents/patterns';
import { testScheduler } from './helpers';

/** A loop of `iterations` calls of `agent`, counting every read of its output. */
function countingLoop(iterations: number, agent: AgentRef, termination = TerminationCondition.maxIterations<number>(iterations)) {
  const reads = { output: 0 };
  const model = ExecutionModel.create<number>({
    pattern: 'loop',
    agents: [agent],
    initialState: () => 0,
    route: () => [agent],
    prompt: (state) => String(state),
    aggregate: (state) => state + 1,
    termination,
    output: (state) => {
      reads.output += 1;
      return String(state);
    },
  });
  return { model, reads };
}

class ModelBuilder<T> extends PatternBuilder<T> {
  constructor(private readonly model: ExecutionModel<T>) {
    super();
  }

  build(): ExecutionModel<T> {
    return this.model;
  }
}

describe('the direct driver loop', () => {
  it('stops calling agents as soon as the subscriber leaves during a synchronous snapshot', () => {
    let calls = 0;
    const agent = defineAgent('sync', () => {
      calls += 1;
      return of('x');
    });
    const seen: number[] = [];
    OrchestratedDriver(countingLoop(100, agent).model, 'go')
      .pipe(take(2))
      .subscribe((snapshot) => seen.push(snapshot.state));
    expect([seen, calls]).toEqual([[1, 2], 2]);
  });

  it('reads the output for the final state only when only the final result is asked for', async () => {
    const agent = defineAgent('sync', () => of('x'));
    const final = countingLoop(3, agent);
    const result = await new ModelBuilder(final.model).execute('go');
    const watched = countingLoop(3, agent);
    const snapshots = await lastValueFrom(new ModelBuilder(watched.model).snapshots$('go').pipe(toArray()));
    expect([result.status, result.output, final.reads.output]).toEqual(['completed', '3', 1]);
    expect([snapshots.map((s) => s.output), watched.reads.output]).toEqual([['1', '2', '3', '3'], 4]);
  });

  it('waits for a condition that answers later, on the scheduler, and one that answers with an Observable at once', () => {
    testScheduler().run(({ expectObservable, cold }) => {
      const agent = defineAgent('slow', () => cold('--(x|)'));
      const later = TerminationCondition.of<number>('later', ({ iteration }) => of(iteration >= 2 ? { type: 'complete' as const, reason: 'two' } : { type: 'continue' as const }).pipe(delay(3)));
      const status = map((r: ExecutionResult<number>) => `${r.status}:${r.state}`);
      const driver = (termination: TerminationCondition<number>) => OrchestratedDriver(countingLoop(10, agent, termination).model, 'go').pipe(status);
      const values = { a: 'running:1', b: 'running:2', c: 'completed:2' };
      // Each answer takes 2 frames; the later condition 3 more after each iteration.
      expectObservable(driver(later)).toBe('--a----b--(c|)', values);
      const atOnce = TerminationCondition.of<number>('at once', ({ iteration }) => of(iteration >= 2 ? { type: 'complete' as const, reason: 'two' } : { type: 'continue' as const }));
      expectObservable(driver(atOnce)).toBe('--a-(bc|)', values);
    });
  });

  it('makes states and snapshots that are plain objects: they spread, serialise and list their keys as before', async () => {
    const debaters = ['pro', 'con'].map((id) => defineAgent(id, () => of(`${id} speaks`)));
    const result = await Patterns.debate({ agents: debaters, maxRounds: 1 }).execute('t');
    const state = result.state;
    expect(Object.getPrototypeOf(state)).toBe(Object.prototype);
    expect(Object.keys(state)).toEqual(['topic', 'participants', 'messages', 'round', 'roundComplete', 'lastSpeaker', 'counts']);
    expect(JSON.parse(JSON.stringify(state)).messages).toEqual(state.messages);
    expect({ ...state }).toEqual(state);
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.keys(result)).toEqual(['pattern', 'mode', 'status', 'state', 'output', 'iterations', 'results', 'reason', 'error', 'durationMs']);
    expect(JSON.parse(JSON.stringify(result)).results.map((r: { agentId: string }) => r.agentId)).toEqual(['pro', 'con']);
    // A copy with a shorter transcript is read from its own messages, not from the original's log.
    const trimmed = { ...state, messages: state.messages.slice(-1) };
    expect(ConversationState.transcript(trimmed)).toBe('con: con speaks');
  });
});
