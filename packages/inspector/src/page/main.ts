import { createElement as h, useState, type ReactElement } from 'react';
import { createRoot } from 'react-dom/client';
import { RunList } from './RunList';
import { RunPanel } from './RunPanel';

// The run inspector's page: the runs on the left, the selected one (`?run=<id>`, kept in the address) on the right.

function App(): ReactElement {
  const [runId, setRunId] = useState<string | null>(() => new URLSearchParams(location.search).get('run'));
  const select = (id: string): void => {
    const url = new URL(location.href);
    url.searchParams.set('run', id);
    history.replaceState(null, '', url);
    setRunId(id);
  };
  return h('div', { id: 'app', style: { display: 'contents' } }, h(RunList, { selected: runId, select }), runId === null ? h('main', null, h('p', null, 'Select a run')) : h(RunPanel, { key: runId, runId }));
}

createRoot(document.getElementById('root') as HTMLElement).render(h(App));
