import type { RunNode, RunView } from '@rxagents/core';

/**
 * Renders run views to the terminal: each agent call on its own line with its text so far, the rounds and
 * decisions of the run, and the latest channel metrics. On a TTY the block is redrawn in place as tokens
 * arrive; elsewhere (CI, a pipe) a line is printed once per finished call, so logs stay readable.
 */
export function terminalRenderer(out: NodeJS.WriteStream = process.stdout): { render(view: RunView): void; finish(view: RunView): void } {
  const live = out.isTTY === true;
  let drawn = 0;
  const printed = new Set<string>();

  const lines = (view: RunView): string[] => {
    const result: string[] = [];
    const visit = (node: RunNode, depth: number): void => {
      const indent = '  '.repeat(depth);
      if (node.kind === 'call') {
        result.push(`${indent}${statusMark(node)} ${node.name.padEnd(11)} ${oneLine(node.text)}`);
      } else if (depth > 0) {
        result.push(`${indent}${statusMark(node)} ${node.name}`);
      }
      // Calls and the node's own events (rounds, decisions) in the order they happened.
      const items: Array<{ readonly at: number; readonly child?: RunNode; readonly line?: string }> = [];
      for (const childId of node.children) {
        const child = view.nodes.find((candidate) => candidate.callId === childId);
        if (child !== undefined) items.push({ at: child.startedAt, child });
      }
      for (const event of node.log) {
        if (event.type === 'round-end') items.push({ at: event.at, line: `${indent}  -- round ${event.round} ended` });
        if (event.type === 'termination') items.push({ at: event.at, line: `${indent}  => ${event.decision}: ${event.reason}` });
      }
      items.sort((a, b) => a.at - b.at);
      for (const item of items) {
        if (item.child !== undefined) visit(item.child, node.kind === 'run' && depth === 0 ? 0 : depth + 1);
        else if (item.line !== undefined) result.push(item.line);
      }
    };
    const root = view.nodes.find((node) => node.callId === view.rootId);
    if (root !== undefined) visit(root, 0);
    for (const sample of view.metrics) {
      const { emitted, delivered, dropped, bufferUsed } = sample.metrics;
      result.push(`channel ${sample.source}: emitted ${String(emitted)}, delivered ${String(delivered)}, dropped ${String(dropped)}, buffered ${String(bufferUsed)}`);
    }
    return result;
  };

  return {
    render(view) {
      if (live) {
        const block = lines(view);
        if (drawn > 0) out.write(`\x1b[${drawn}F`);
        for (const line of block) out.write(`\x1b[2K${line.slice(0, Math.max(40, out.columns || 120) - 1)}\n`);
        drawn = block.length;
        return;
      }
      for (const node of view.nodes) {
        if (node.kind !== 'call' || node.status === 'running' || printed.has(node.callId)) continue;
        printed.add(node.callId);
        out.write(`${statusMark(node)} ${node.name.padEnd(11)} ${oneLine(node.text)}\n`);
      }
    },
    finish(view) {
      if (live) return;
      for (const line of lines(view).filter((line) => line.includes('=>') || line.startsWith('channel '))) out.write(`${line.trim()}\n`);
    },
  };
}

const MARKS: Readonly<Record<RunNode['status'], string>> = { running: '…', completed: '✓', cancelled: '⨯', interrupted: '↻', failed: '✗' };

function statusMark(node: RunNode): string {
  return MARKS[node.status];
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
