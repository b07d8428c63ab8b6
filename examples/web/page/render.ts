import type { RunEvent, RunEventOf, RunNode, RunView } from '@rxagents/core';

/** The page's own state beside the run's view: whether a person pressed Stop, what went wrong. */
export interface PageState {
  readonly view: RunView;
  /** Events received so far (the id of the latest is one less). */
  readonly eventCount: number;
  /** Stopped by Stop or by the server (its agents aborted). */
  readonly stopped: boolean;
  /** Why the stream failed, when it did. */
  readonly failure?: string;
}

type Child = Node | string;

function el(tag: string, attributes: Record<string, string> = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children);
  return element;
}

/** The page's status word: a run's status, or `stopped` when it was cancelled. */
export function statusOf(state: PageState): string {
  if (state.stopped || state.view.status === 'cancelled') return 'stopped';
  if (state.failure !== undefined) return 'failed';
  return state.view.status;
}

/** One panel per agent under each run node, a paragraph per call (turn); nested runs indented. */
export function renderCalls(view: RunView): HTMLElement {
  const byId = new Map(view.nodes.map((node) => [node.callId, node]));
  const renderRun = (run: RunNode, depth: number): HTMLElement => {
    const container = el('div', depth > 0 ? { class: 'nested', 'data-run': run.name } : { 'data-run': run.name });
    const panels = new Map<string, { panel: HTMLElement; calls: RunNode[] }>();
    for (const childId of run.children) {
      const child = byId.get(childId);
      if (child === undefined) continue;
      if (child.kind === 'run') {
        container.append(el('div', { class: 'nested-run' }, el('header', {}, `▸ ${child.name} (${child.status})`), renderRun(child, depth + 1)));
        continue;
      }
      let entry = panels.get(child.name);
      if (entry === undefined) {
        entry = { panel: el('div', { class: 'panel', 'data-agent': child.name }), calls: [] };
        panels.set(child.name, entry);
        container.append(entry.panel);
      }
      entry.calls.push(child);
      entry.panel.append(el('div', { class: 'turn', 'data-call-id': child.callId, 'data-status': child.status }, child.text));
      for (const grandchildId of child.children) {
        const grandchild = byId.get(grandchildId);
        // A question to a person is drawn as its own card, not as a nested run.
        if (grandchild !== undefined && grandchild.kind !== 'interrupt') entry.panel.append(renderRun(grandchild, depth + 1));
      }
    }
    for (const [name, { panel, calls }] of panels) {
      const status = calls.some((call) => call.status === 'running') ? 'running' : (calls.at(-1)?.status ?? 'running');
      panel.setAttribute('data-status', status);
      panel.prepend(el('header', {}, el('span', {}, name), el('span', {}, `${calls.length} turn${calls.length === 1 ? '' : 's'} · ${status}`)));
    }
    return container;
  };
  const root = view.rootId === null ? undefined : byId.get(view.rootId);
  if (root === undefined) return el('div', {}, 'No run yet.');
  return root.kind === 'run' ? renderRun(root, 0) : renderRun({ ...root, children: [root.callId] }, 0);
}

function describe(event: RunEvent): string | undefined {
  switch (event.type) {
    case 'step':
      return `step ${event.interactionId} by ${event.agentId}: ${event.success ? 'done' : `failed (${event.error?.message ?? ''})`} in ${event.durationMs} ms`;
    case 'handoff':
      return `handoff ${event.from} → ${event.to}`;
    case 'choreography-event':
      // The initial event has no source agent: the run itself raised it.
      return event.source === null ? `event ${event.name} raised by the run` : `event ${event.name} from ${event.source}`;
    case 'round-end':
      return `round ${event.round} ended`;
    case 'termination':
      return `${event.decision}: ${event.reason}`;
    case 'interrupt':
      return 'waiting for a person';
    case 'custom':
      return event.name;
    default:
      return undefined;
  }
}

/** Steps, handoffs, choreography events, rounds and decisions, in the order they happened. */
export function renderTimeline(view: RunView): HTMLElement[] {
  const startedAt = view.nodes[0]?.startedAt ?? 0;
  const entries: Array<{ at: number; line: string; type: string }> = [];
  for (const node of view.nodes) {
    if (node.kind === 'interrupt') {
      // A question to a person: when it was asked, and when it closed (answered, or why not).
      entries.push({ at: node.startedAt, line: `${node.interrupt?.kind === 'approval' ? `approval of ${node.name}` : 'input'} asked: ${node.input}`, type: 'interrupt' });
      if (node.durationMs !== undefined) {
        const closed = node.status === 'completed' ? 'answered' : `question closed (${node.error?.code ?? node.error?.name ?? node.status})`;
        entries.push({ at: node.startedAt + node.durationMs, line: closed, type: 'interrupt-end' });
      }
    }
    for (const event of node.log) {
      const line = describe(event);
      if (line !== undefined) entries.push({ at: event.at, line, type: event.type });
    }
  }
  entries.sort((a, b) => a.at - b.at);
  return entries.map((entry) => el('li', { 'data-type': entry.type }, `+${Math.round(entry.at - startedAt)} ms  ${entry.line}`));
}

/** One row per channel: buffer fill, emitted, delivered, dropped; or why there is none (not yet, or none in this run). */
export function renderMetrics(view: RunView): HTMLElement {
  if (view.metrics.length === 0) return el('div', {}, view.status === 'running' || view.rootId === null ? 'No channel yet.' : 'This run used no channel.');
  const number = (value: unknown): number => (typeof value === 'number' ? value : 0);
  const rows = view.metrics.map((sample) => {
    const used = number(sample.metrics['bufferUsed']);
    const capacity = number(sample.metrics['bufferCapacity']);
    const percent = capacity > 0 ? Math.min(100, (100 * used) / capacity) : 0;
    return el(
      'tr',
      { 'data-source': sample.source },
      el('td', {}, sample.source),
      el('td', { class: 'buffer' }, el('div', { class: 'fill', title: `${used} of ${capacity}` }, el('span', { style: `width:${percent}%` })), `${used}/${capacity}`),
      el('td', { class: 'emitted' }, String(number(sample.metrics['emitted']))),
      el('td', { class: 'delivered' }, String(number(sample.metrics['delivered']))),
      el('td', { class: 'dropped' }, String(number(sample.metrics['dropped']))),
    );
  });
  const head = el('tr', {}, ...['channel', 'buffer', 'emitted', 'delivered', 'dropped'].map((title) => el('th', {}, title)));
  return el('table', {}, el('thead', {}, head), el('tbody', {}, ...rows));
}

/** The topic the run was started with: its root's input. */
export function topicOf(view: RunView): string {
  return view.nodes.find((node) => node.callId === view.rootId)?.input ?? '';
}

/**
 * The run's outcome: once it completed, why a conversation ended (the judge's verdict; its output is the
 * transcript, already in the Agents panel) or the output of any other run; the error once it failed or stopped.
 */
export function resultOf(state: PageState): string {
  const root = state.view.nodes.find((node) => node.callId === state.view.rootId);
  if (state.failure !== undefined) return state.failure;
  if (root === undefined || root.status === 'running') return '';
  if (root.status !== 'completed') return `${root.status}: ${root.error?.message ?? ''}`;
  const conversation = root.log.some((event) => event.type === 'message');
  const termination = [...root.log].reverse().find((event): event is RunEventOf<'termination'> => event.type === 'termination');
  return conversation && termination !== undefined ? termination.reason : root.text;
}

/**
 * The latest question a person has not answered yet: an interrupt still open, with the id an answer
 * must name (the run is the one this page watches).
 */
export function pendingQuestion(view: RunView, answered: ReadonlySet<string>): { interruptId: string; prompt: string } | undefined {
  for (const node of view.nodes) {
    if (node.kind !== 'interrupt' || node.status !== 'running' || node.interrupt === undefined) continue;
    if (!answered.has(node.interrupt.interruptId)) return { interruptId: node.interrupt.interruptId, prompt: node.interrupt.question };
  }
  return undefined;
}
