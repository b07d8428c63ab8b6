import { createElement as h, type ReactElement } from 'react';
import type { RunNode, RunView } from '@rxagents/core';

const KIND_LABELS: Readonly<Record<RunNode['kind'], string>> = { run: 'run', call: 'agent', interrupt: 'asks' };

/** The run's tree of nodes (runs, agent calls, interrupts), each selectable. */
export function RunTree({ view, selected, select }: { view: RunView; selected: string | null; select: (callId: string) => void }): ReactElement {
  const byId = new Map(view.nodes.map((node) => [node.callId, node]));
  const item = (node: RunNode): ReactElement =>
    h(
      'li',
      { key: node.callId, 'data-kind': node.kind, 'data-status': node.status, 'data-call-id': node.callId },
      h(
        'span',
        { className: node.callId === selected ? 'label selected' : 'label', onClick: () => select(node.callId) },
        h('span', { className: 'kind' }, KIND_LABELS[node.kind]),
        node.name,
        h('span', { className: 'status' }, node.status),
      ),
      node.children.length === 0 ? null : h('ul', null, ...node.children.flatMap((id) => (byId.has(id) ? [item(byId.get(id) as RunNode)] : []))),
    );
  const root = view.rootId === null ? undefined : byId.get(view.rootId);
  return h('section', { id: 'tree' }, h('h2', null, 'Calls'), root === undefined ? h('p', null, 'Nothing yet') : h('ul', null, item(root)));
}
