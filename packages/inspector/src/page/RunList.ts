import { createElement as h, useEffect, useState, type ReactElement } from 'react';
import { catchError, EMPTY, from, switchMap, timer } from 'rxjs';
import type { RunSummary } from '@rxagents/core';

/** The store's runs, newest first, read again every two seconds; the selected one highlighted. */
export function RunList({ selected, select }: { selected: string | null; select: (runId: string) => void }): ReactElement {
  const [runs, setRuns] = useState<readonly RunSummary[]>([]);
  useEffect(() => {
    const subscription = timer(0, 2_000)
      .pipe(switchMap(() => from(fetch('api/runs').then((response) => response.json() as Promise<{ runs: RunSummary[] }>)).pipe(catchError(() => EMPTY))))
      .subscribe(({ runs: listed }) => setRuns(listed));
    return () => subscription.unsubscribe();
  }, []);
  return h(
    'aside',
    null,
    h('h1', null, 'Runs'),
    h(
      'ul',
      { id: 'runs' },
      ...runs.map((run) =>
        h(
          'li',
          { key: run.runId, 'data-run-id': run.runId, 'data-status': run.status, className: run.runId === selected ? 'selected' : undefined, onClick: () => select(run.runId) },
          run.name,
          h('span', { className: 'status' }, run.status),
          h('small', null, `${new Date(run.createdAt).toISOString().slice(11, 19)} · ${run.records} events · ${run.runId.slice(0, 8)}`),
        ),
      ),
    ),
  );
}
