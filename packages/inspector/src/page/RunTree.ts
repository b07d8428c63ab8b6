import { createElement as h, type ReactElement } from 'react';
import type { RunNode, RunView } from '@rxagents/core';

const KIND_LABELS: Readonly<Record<RunNode['kind'], string>> = { run: 'run', call: 'agent', interrupt: 'asks' };

/** Which attempt at its place a node is, counted along its `supersedes` links (1 for a first attempt). */
const attemptOf = (node: RunNode, byId: ReadonlyMap<string, RunNode>): number => {
  let attempt = 1;
  for (let at = node.supersedes; at !== undefined && attempt <= byId.size; at = byId.get(at)?.supersedes) attempt++;
  return attempt;
};

/**
 * The run's tree of nodes (runs, agent calls, interrupts), each selectable. An attempt a resumed durable
 * run made again shows as `interrupted`, or is folded (with what is under it) when `fold` is on; the
 * attempt that took its place says which attempt it is.
 */
export function RunTree({ view, selected, select, fold, setFold }: { view: RunView; selected: string | null; select: (callId: string) => void; fold: boolean; setFold: (fold: boolean) => void }): ReactElement {
  const byId = new Map(view.nodes.map((node) => [node.callId, node]));
  const superseded = view.nodes.filter((node) => node.supersededBy !== undefined).length;
  const shown = (id: string): RunNode[] => {
    const node = byId.get(id);
    return node === undefined || (fold && node.supersededBy !== undefined) ? [] : [node];
  };
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
        node.supersedes === undefined ? null : h('span', { className: 'attempt', title: `takes the place of ${node.supersedes}` }, `attempt ${attemptOf(node, byId)}`),
      ),
      node.children.length === 0 ? null : h('ul', null, ...node.children.flatMap(shown).map(item)),
    );
  const root = view.rootId === null ? undefined : byId.get(view.rootId);
  const toggle =
    superseded === 0
      ? null
      : h(
          'label',
          { className: 'fold' },
          h('input', { type: 'checkbox', id: 'fold', checked: fold, onChange: (event: { target: { checked: boolean } }) => setFold(event.target.checked) }),
          ` fold ${superseded} interrupted attempt${superseded === 1 ? '' : 's'}`,
        );
  return h('section', { id: 'tree' }, h('h2', null, 'Calls'), toggle, root === undefined ? h('p', null, 'Nothing yet') : h('ul', null, item(root)));
}
