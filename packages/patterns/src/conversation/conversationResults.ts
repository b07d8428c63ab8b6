import type { AgentResult } from '../execution/AgentResult';
import { AppendLog } from './AppendLog';
import { logView, markedLog, markLog } from './logView';

/** Something carrying every result so far: a conversation event. */
interface WithResults {
  readonly results: readonly AgentResult[];
}

/** `results` of every conversation event: one getter for all (see {@link logView}). */
const RESULTS = logView();

/**
 * `fields` with `results` read from `log` (a frozen array built when first read), marked with `log` so
 * that a pattern's snapshot can share it rather than copy the array; returns the event.
 */
export function withLog<E extends WithResults>(fields: Omit<E, 'results'>, log: AppendLog<AgentResult>): E {
  Object.defineProperty(fields, 'results', RESULTS);
  return markLog(fields, log) as E;
}

/** The shared results log of an event the orchestrator emitted (a copy of `results` for any other event). */
export function resultLogOf(event: WithResults): AppendLog<AgentResult> {
  return markedLog<AgentResult>(event) ?? AppendLog.of(event.results);
}
