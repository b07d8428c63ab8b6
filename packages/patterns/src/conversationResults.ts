import type { AgentResult } from './AgentResult';
import { AppendLog } from './AppendLog';

/** Something carrying every result so far: a conversation event. */
interface WithResults {
  readonly results: readonly AgentResult[];
}

/** The results log behind each conversation event's `results`, so a pattern's snapshot can share it rather than copy the array. */
const resultLogs = new WeakMap<WithResults, AppendLog<AgentResult>>();

/** Records `log` as the log behind `event.results`; returns `event`. */
export function withLog<E extends WithResults>(event: E, log: AppendLog<AgentResult>): E {
  resultLogs.set(event, log);
  return event;
}

/** The shared results log of an event the orchestrator emitted (a copy of `results` for any other event). */
export function resultLogOf(event: WithResults): AppendLog<AgentResult> {
  return resultLogs.get(event) ?? AppendLog.of(event.results);
}
