import fc from 'fast-check';
import { ConfigError, emptyRunView, reduceRunView, type RunEvent, type RunView } from '@rxagents/core';
import { countLargeArrayCopies } from '../../../test/support/countLargeArrayCopies';

const fold = (events: readonly RunEvent[], from: RunView = emptyRunView): RunView => events.reduce(reduceRunView, from);
const plain = (view: RunView): unknown => JSON.parse(JSON.stringify(view));

const base = { runId: 'r', at: 1 } as const;
const runStart = (callId: string, parentCallId: string | null = null): RunEvent => ({ type: 'run-start', ...base, callId, parentCallId, name: callId, input: 'go' });
const callStart = (callId: string, parentCallId = 'root'): RunEvent => ({ type: 'call-start', ...base, callId, parentCallId, agentId: `a-${callId}`, input: 'go' });
const delta = (callId: string, text: string, parentCallId = 'root'): RunEvent => ({ type: 'text-delta', ...base, callId, parentCallId, agentId: `a-${callId}`, delta: text });
const callEnd = (callId: string, parentCallId = 'root'): RunEvent => ({ type: 'call-end', ...base, callId, parentCallId, agentId: `a-${callId}`, durationMs: 1 });
const usage = (callId: string, parentCallId = 'root'): RunEvent => ({ type: 'usage', ...base, callId, parentCallId, agentId: `a-${callId}`, inputTokens: 1, outputTokens: 2 });
const custom = (callId: string, name: string, parentCallId = 'root'): RunEvent => ({ type: 'custom', ...base, callId, parentCallId, name, data: name });
const runEnd = (callId: string, parentCallId: string | null = null): RunEvent => ({ type: 'run-end', ...base, callId, parentCallId, success: true, output: 'done', durationMs: 2 });

/** Any event of a small run: ids from a few calls and runs, parents that may or may not have started yet. */
const anyEvent: fc.Arbitrary<RunEvent> = fc
  .tuple(fc.constantFrom('root', 'n1', 'c1', 'c2', 'c3'), fc.constantFrom(null, 'root', 'n1'), fc.nat(6), fc.constantFrom('a', 'b'))
  .map(([callId, parent, kind, text]) => {
    const parentCallId = callId === 'root' ? null : (parent ?? 'root');
    switch (kind) {
      case 0:
        return callId.startsWith('c') ? callStart(callId, parentCallId ?? 'root') : runStart(callId, parentCallId);
      case 1:
      case 2:
        return delta(callId, text, parentCallId ?? 'root');
      case 3:
        return callEnd(callId, parentCallId ?? 'root');
      case 4:
        return usage(callId, parentCallId ?? 'root');
      case 5:
        return custom(callId, text, parentCallId ?? 'root');
      default:
        return runEnd(callId, parentCallId);
    }
  });

describe('reduceRunView', () => {
  it('never changes a view it returned: 1,000 events later, every view still shows what it showed', () => {
    const events: RunEvent[] = [runStart('root')];
    for (let i = 0; i < 999; i++) {
      const call = `c${i % 50}`;
      events.push(i < 50 ? callStart(call) : i % 7 === 0 ? custom(call, `step ${i}`) : i % 11 === 0 ? usage(call) : delta(call, `${i} `));
    }
    // Each view read the moment it is made...
    const shown: string[] = [];
    let view = emptyRunView;
    for (const event of events) shown.push(JSON.stringify((view = reduceRunView(view, event))));
    // ...and each view of the same fold kept unread until all 1,000 are done.
    const kept: RunView[] = [];
    view = emptyRunView;
    for (const event of events) kept.push((view = reduceRunView(view, event)));
    expect(kept.map((kept) => JSON.stringify(kept))).toEqual(shown);
    expect(kept[60]?.nodes.length).toBe(51);
    expect(kept[60]?.nodes[1]?.text).toBe('50 ');
  });

  it('folds two events into one old view as if each were the only one: branches never see each other', () => {
    const old = fold([runStart('root'), callStart('c1'), delta('c1', 'Once ')]);
    // Branch a starts x, then a late child k of a parent p it has not seen; branch b starts y, then x, then p.
    const a = fold([callStart('x'), delta('x', 'from a'), callStart('k', 'p')], old);
    const b = fold([callStart('y'), callStart('x'), delta('x', 'from b'), runStart('p', 'root')], old);
    const a2 = fold([delta('x', '!'), runStart('p', 'root'), delta('c1', 'upon')], a);
    expect(plain(a2)).toEqual(plain(fold([runStart('root'), callStart('c1'), delta('c1', 'Once '), callStart('x'), delta('x', 'from a'), callStart('k', 'p'), delta('x', '!'), runStart('p', 'root'), delta('c1', 'upon')])));
    expect(plain(b)).toEqual(plain(fold([runStart('root'), callStart('c1'), delta('c1', 'Once '), callStart('y'), callStart('x'), delta('x', 'from b'), runStart('p', 'root')])));
    expect(a2.nodes.map((node) => node.callId)).toEqual(['root', 'c1', 'x', 'k', 'p']);
    expect(a2.nodes.find((node) => node.callId === 'p')?.children).toEqual(['k']);
    expect(b.nodes.map((node) => node.callId)).toEqual(['root', 'c1', 'y', 'x', 'p']);
    expect(b.nodes.find((node) => node.callId === 'p')?.children).toEqual([]);
    expect(old.nodes.map((node) => [node.callId, node.text])).toEqual([['root', ''], ['c1', 'Once ']]);
  });

  it('gives the same view on any branch of a fold as a fold of that branch alone', () => {
    fc.assert(
      fc.property(fc.array(anyEvent, { maxLength: 12 }), fc.array(fc.array(anyEvent, { maxLength: 8 }), { minLength: 2, maxLength: 4 }), fc.nat(), (trunk, branches, cut) => {
        const views = [emptyRunView];
        for (const event of trunk) views.push(reduceRunView(views[views.length - 1] as RunView, event));
        const at = cut % views.length;
        const folded = branches.map((branch) => fold(branch, views[at]));
        folded.forEach((view, i) => expect(plain(view)).toEqual(plain(fold([...trunk.slice(0, at), ...(branches[i] as RunEvent[])]))));
        expect(plain(views[views.length - 1] as RunView)).toEqual(plain(fold(trunk)));
      }),
    );
  });

  it('copies no list of all nodes per event: deltas, ends, usage and custom events into a run of 5,000 nodes', () => {
    // 50 nested runs of 100 calls each, so that no node has 1,000 children to copy on a start.
    const events: RunEvent[] = [runStart('root')];
    for (let n = 0; n < 50; n++) {
      events.push(runStart(`n${n}`, 'root'));
      for (let c = 0; c < 99; c++) events.push(callStart(`n${n}c${c}`, `n${n}`));
    }
    let view = emptyRunView;
    const startCopies = countLargeArrayCopies(1_000, () => (view = fold(events)));
    expect(view.nodes.length).toBe(1 + 50 * 100);
    const later: RunEvent[] = [];
    for (let i = 0; i < 1_000; i++) {
      const call = `n${(i * 7) % 50}c${(i * 13) % 99}`;
      const parent = call.slice(0, call.indexOf('c'));
      later.push(delta(call, 'x', parent), usage(call, parent), custom(call, 'step', parent));
    }
    later.push(callEnd('n0c0', 'n0'), runEnd('n0', 'root'), runEnd('root'));
    const foldCopies = countLargeArrayCopies(1_000, () => (view = fold(later, view)));
    expect({ startCopies, foldCopies }).toEqual({ startCopies: 0, foldCopies: 0 });
    expect(view.status).toBe('completed');
    expect(view.usage.totalTokens).toBe(3_000);
    expect(view.nodes.find((node) => node.callId === 'n0c0')).toMatchObject({ status: 'completed', text: 'x' });
  });

  it('reads nodes as a plain frozen array, built once per view; a copy, a JSON or a structured clone of a view folds on as the view does', () => {
    const view = fold([runStart('root'), callStart('c1'), delta('c1', 'hi'), usage('c1')]);
    expect(Array.isArray(view.nodes)).toBe(true);
    expect(Object.isFrozen(view.nodes)).toBe(true);
    expect(view.nodes).toBe(view.nodes);
    expect(Object.keys(view)).toEqual(['runId', 'status', 'rootId', 'nodes', 'usage', 'metrics', 'at']);
    expect(structuredClone(view)).toEqual(plain(view));
    expect([...view.nodes].map((node) => node.callId)).toEqual(['root', 'c1']);
    const next = [callStart('c2'), delta('c1', '!'), runEnd('root')];
    const expected = plain(fold(next, view));
    for (const copy of [{ ...view }, structuredClone(view), plain(view) as RunView]) expect(plain(fold(next, copy))).toEqual(expected);
    // A view made by hand keeps its own extra fields in the views folded from it, as a spread did.
    const tagged = fold(next, { ...view, tag: 'mine' } as RunView);
    expect((tagged as RunView & { tag?: string }).tag).toBe('mine');
  });

  it.each([null, undefined, 42])('refuses %p as the view or the event with a ConfigError naming it', (bad) => {
    const event: RunEvent = { type: 'run-start', runId: 'r', callId: 'c', parentCallId: null, at: 0, name: 'n', input: 'i' };
    expect(() => reduceRunView(bad as never, event)).toThrow(ConfigError);
    expect(() => reduceRunView(bad as never, event)).toThrow(/^reduceRunView: view must be a RunView/);
    expect(() => reduceRunView(emptyRunView, bad as never)).toThrow(/^reduceRunView: event must be a run event/);
  });
});
