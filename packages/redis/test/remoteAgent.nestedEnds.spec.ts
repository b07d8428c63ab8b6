import { emptyRunView, defineAgent, invoke$, observeRun, reduceRunView, traceRun, type RunEvent } from '@rxagents/core';
import { firstValueFrom, tap, toArray } from 'rxjs';
import { remoteAgent } from '../src';
import { describeRedis } from './support/describeRedis';
import { servedPerTest } from './support/servedPerTest';
import { waitingAgent } from './support/waitingAgent';

jest.setTimeout(30_000);

describeRedis('remote calls: the nodes a worker opened in the caller\'s run', (server) => {
  const served = servedPerTest('tn');

  it('end with the remote call when it ends first (here its timeout), so no view shows them running', async () => {
    const inner = waitingAgent('inner');
    // The remote agent runs a nested run with a call of its own, whose events go to the caller's run.
    const panel = defineAgent('panel', (input, { run }) => traceRun(run, 'review', input, (nested) => invoke$(inner.agent, input, nested === undefined ? {} : { run: nested })));
    served.serve(server().client(), panel);
    const remote = remoteAgent(server().client(), 'panel', { prefix: served.prefix });
    let sawInner = false;
    const events = await firstValueFrom(
      observeRun('caller', 'x', (run) => invoke$(remote, 'x', { run, timeout: 1_500 })).pipe(
        tap((event) => (sawInner ||= event.type === 'call-start' && event.agentId === 'inner')),
        toArray(),
      ),
    );

    expect(sawInner).toBe(true);
    const view = events.reduce(reduceRunView, emptyRunView);
    expect(view.nodes.filter((node) => node.status === 'running').map((node) => node.name)).toEqual([]);
    const ends = events.filter((event): event is Extract<RunEvent, { type: 'call-error' | 'run-end' }> => event.type === 'call-error' || event.type === 'run-end');
    const names = new Map(view.nodes.map((node) => [node.callId, node.name]));
    // Innermost first, all before the remote call's own end.
    expect(ends.map((event) => names.get(event.callId))).toEqual(['inner', 'review', 'panel', 'caller']);
    expect(ends.slice(0, 2).map((event) => event.error?.name)).toEqual(['AbortError', 'AbortError']);
  });
});
