import { createElement as h, type ReactElement, type ReactNode } from 'react';
import type { RunNode } from '@rxagents/core';

const row = (label: string, value: ReactNode, className?: string): ReactNode[] => [h('dt', { key: `${label}-t` }, label), h('dd', { key: `${label}-d`, className }, value)];

/** The selected node: what it was asked, what it answered (its text), its tokens, its error or answer. */
export function NodeDetails({ node, runStart }: { node: RunNode | undefined; runStart: number }): ReactElement {
  if (node === undefined) return h('section', { id: 'details' }, h('h2', null, 'Details'), h('p', null, 'Select a call'));
  const rows: ReactNode[] = [
    ...row('name', `${node.name} (${node.kind})`),
    ...row('status', node.status),
    ...row('time', `started at +${node.startedAt - runStart} ms${node.durationMs === undefined ? ', still running' : `, took ${node.durationMs} ms`}`),
    ...row('input', h('pre', null, node.input)),
  ];
  if (node.text !== '') rows.push(...row('text', h('pre', { className: 'text' }, node.text)));
  if (node.usage !== undefined) rows.push(...row('usage', `${node.usage.inputTokens} in, ${node.usage.outputTokens} out, ${node.usage.totalTokens} total tokens`));
  if (node.answer !== undefined) rows.push(...row('answer', h('pre', null, JSON.stringify(node.answer))));
  if (node.supersedes !== undefined) rows.push(...row('attempt', `runs again in place of ${node.supersedes}, which a stopped process cut off`));
  if (node.supersededBy !== undefined) rows.push(...row('attempt', `cut off by a stopped process; ${node.supersededBy} ran in its place`, 'interrupted'));
  if (node.error !== undefined) {
    const { name, code, message } = node.error;
    rows.push(...row('error', `${name}${code === undefined ? '' : ` ${code}`}: ${message}`, node.status === 'interrupted' ? 'interrupted' : 'error'));
  }
  return h('section', { id: 'details', 'data-call-id': node.callId, 'data-status': node.status }, h('h2', null, 'Details'), h('dl', null, ...rows));
}
