import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { ConfigError, configRules, type RunEvent, type RunRecord } from '@rxagents/core';
import { z } from 'zod';
import { ReplayExhaustedError } from './errors/ReplayExhaustedError';
import { ReplayInputMismatchError } from './errors/ReplayInputMismatchError';
import { answeringAgent } from './internal/answeringAgent';
import { idIssues, issuesAt, throwIfAny } from './internal/issuesAt';
import { playCall } from './internal/playCall';
import { readJournal } from './internal/readJournal';
import type { JournalCall } from './JournalCall';
import type { ScriptedAgent } from './scriptedAgent';

/**
 * Options of {@link replayAgents}.
 *
 * @example
 * ```ts
 * import { VirtualTimeScheduler } from 'rxjs';
 * import type { ReplayAgentsOptions } from '@rxagents/testing';
 *
 * const options: ReplayAgentsOptions = { scheduler: new VirtualTimeScheduler(), matchInput: false };
 * console.log(options.matchInput); // false
 * ```
 */
export interface ReplayAgentsOptions {
  /** The clock the recorded timings are replayed on. Defaults to `asyncScheduler` (virtualised by `TestScheduler.run`). */
  readonly scheduler?: SchedulerLike;
  /**
   * Whether a call must have its recorded call's input (a `ReplayInputMismatchError` otherwise). Defaults to
   * `true`. A call recorded with `inputOmitted` (an input too long to repeat in an event) is never compared.
   */
  readonly matchInput?: boolean;
}

/**
 * An agent that answers each call as the journal recorded the same call of its agent.
 *
 * @remarks
 * A {@link ScriptedAgent} (its `inputs`, `calls` and `abortCount` are those of the replay) that also says
 * what it replays.
 *
 * @example
 * ```ts
 * import { replayAgents, type ReplayAgent } from '@rxagents/testing';
 *
 * const replay = replayAgents([
 *   { type: 'run-start', runId: 'r1', callId: 'run', parentCallId: null, at: 0, name: 'story', input: 'go' },
 *   { type: 'call-start', runId: 'r1', callId: 'run/0', parentCallId: 'run', at: 0, agentId: 'writer', input: 'go' },
 *   { type: 'text-delta', runId: 'r1', callId: 'run/0', parentCallId: 'run', at: 5, agentId: 'writer', delta: 'Once' },
 *   { type: 'call-end', runId: 'r1', callId: 'run/0', parentCallId: 'run', at: 5, agentId: 'writer', durationMs: 5 },
 * ]);
 * const writer: ReplayAgent = replay.agent('writer');
 * console.log(writer.recorded.length, writer.remaining); // 1 1
 * ```
 */
export interface ReplayAgent extends ScriptedAgent {
  /** The calls of this agent the journal records, in `call-start` order: the k-th call answers as the k-th. */
  readonly recorded: readonly JournalCall[];
  /** How many recorded calls no call has used yet. */
  readonly remaining: number;
}

/**
 * What {@link replayAgents} gives: the recorded run's root and one replay agent per recorded agent.
 *
 * @example
 * ```ts
 * import { replayAgents, type JournalReplay } from '@rxagents/testing';
 *
 * const replay: JournalReplay = replayAgents([{ type: 'run-start', runId: 'r1', callId: 'run', parentCallId: null, at: 0, name: 'story', input: 'go' }]);
 * console.log(replay.runId, replay.root.name, replay.root.input, replay.agents.size); // r1 story go 0
 * ```
 */
export interface JournalReplay {
  /** The recorded run's id: pass it as `observeRun`'s `runId` so the replayed events carry it too. */
  readonly runId: string;
  /** The root `run-start`'s `name` and `input` (`''` with `inputOmitted` when the journal left it out). */
  readonly root: { readonly name: string; readonly input: string; readonly inputOmitted: boolean };
  /** The journal's events, checked, in order. */
  readonly events: readonly RunEvent[];
  /** A replay agent for every `agentId` the journal records a call of, keyed by agent id. */
  readonly agents: ReadonlyMap<string, ReplayAgent>;
  /** The replay agent for `id`; an agent the journal never called gets one whose every call is a `ReplayExhaustedError`. */
  agent(id: string): ReplayAgent;
}

/**
 * Turns a run's journal into agents that answer as recorded, with the recorded timings, so a run (a
 * production run that went wrong) replays exactly in a marble test.
 *
 * @remarks
 * The journal is the run's {@link @rxagents/core!RunEvent | RunEvent}s in order: an array of events or of
 * `RunRecord`s (`{ seq, event }`), or an `AsyncIterable` of them (what `RunStore.read` yields; the result is
 * then a Promise). Every entry is checked with `RunEventSchema`, records' `seq` must follow each other, the
 * first event must be the root `run-start`, every event must be of its run, and a call's deltas and end
 * must follow its `call-start`.
 *
 * The k-th call to an agent answers as the k-th `call-start` of that agent in the journal: its
 * `text-delta`s are the chunks, each at its recorded time from the call's start (the difference of the
 * events' `at`) on `scheduler`, then it completes at its `call-end`'s time or errors at its
 * `call-error`'s time with a {@link ReplayedCallError} (the recorded name, message, code and `retryable`).
 * (Times are exact; only the order of deltas that two concurrent calls recorded at the very same time is
 * the scheduler's, which may differ from the journal's.)
 * A call that was cancelled (its error is named `AbortError`) or that the journal does not see end never
 * ends: it stays open until its caller aborts it, so a replayed run is cut off where the recorded one
 * was. The journal of a resumed run holds, for a call in flight when its process stopped, an attempt
 * ended with `CALL_INTERRUPTED` and a later attempt at the same place (its `callId` ends with `#2`, ...):
 * the code makes that call once, so the interrupted attempt is left out and the call answers as the later
 * attempt did (an interrupted attempt with no later one never ends either). A call past the recorded ones fails with
 * {@link ReplayExhaustedError}; a call whose input is not the recorded one fails with
 * {@link ReplayInputMismatchError} (unless `matchInput: false`). Through `stream` both arrive as an
 * `AgentError` whose `cause` is the typed error.
 *
 * A call made inside another agent's call (a `ComposedAgent`'s pattern, a routing agent's target) is a
 * call of its own agent: the outer agent's replay answers with the outer call's own deltas only and does
 * not make the inner calls. To replay the inner calls, keep the outer agent's code and give it the replay
 * agents of the agents it calls.
 *
 * Replay agents count their calls: build a new replay for each replayed run.
 *
 * @throws {@link @rxagents/core!ConfigError | ConfigError} (a rejected Promise for an `AsyncIterable`) naming
 *   the entry and the rule it breaks, or an unknown or invalid option.
 *
 * @example
 * ```ts
 * import { deepStrictEqual } from 'node:assert';
 * import { TestScheduler } from 'rxjs/testing';
 * import { stream, type RunEvent } from '@rxagents/core';
 * import { replayAgents } from '@rxagents/testing';
 *
 * const journal: RunEvent[] = [
 *   { type: 'run-start', runId: 'r1', callId: 'run', parentCallId: null, at: 0, name: 'story', input: 'go' },
 *   { type: 'call-start', runId: 'r1', callId: 'c1', parentCallId: 'run', at: 10, agentId: 'writer', input: 'go' },
 *   { type: 'text-delta', runId: 'r1', callId: 'c1', parentCallId: 'run', at: 12, agentId: 'writer', delta: 'Once ' },
 *   { type: 'text-delta', runId: 'r1', callId: 'c1', parentCallId: 'run', at: 15, agentId: 'writer', delta: 'upon' },
 *   { type: 'call-end', runId: 'r1', callId: 'c1', parentCallId: 'run', at: 16, agentId: 'writer', durationMs: 6 },
 * ];
 * new TestScheduler(deepStrictEqual).run(({ expectObservable }) => {
 *   const writer = replayAgents(journal).agent('writer');
 *   expectObservable(stream(writer, 'go')).toBe('--a--b|', { a: 'Once ', b: 'upon' });
 * });
 * ```
 */
export function replayAgents(journal: readonly (RunEvent | RunRecord)[], options?: ReplayAgentsOptions): JournalReplay;
/** A journal read from a store (`RunStore.read`): the replay once it is read. */
export function replayAgents(journal: AsyncIterable<RunEvent | RunRecord>, options?: ReplayAgentsOptions): Promise<JournalReplay>;
export function replayAgents(
  journal: readonly (RunEvent | RunRecord)[] | AsyncIterable<RunEvent | RunRecord>,
  options: ReplayAgentsOptions = {},
): JournalReplay | Promise<JournalReplay> {
  if (Array.isArray(journal)) return replay(journal, options);
  if (!isAsyncIterable(journal)) throw new ConfigError('replayAgents', [{ path: 'journal', rule: JOURNAL, received: journal }]);
  // Bad options are said before the journal is read.
  const issues = issuesAt(ReplayAgentsOptionsSchema, options, 'options');
  if (issues.length > 0) return Promise.reject(new ConfigError('replayAgents', issues));
  return collect(journal).then((entries) => replay(entries, options));
}

const JOURNAL = 'must be an array of run events or run records, or an AsyncIterable of them (as RunStore.read yields)';

const ReplayAgentsOptionsSchema = z.strictObject(
  {
    scheduler: configRules.scheduler().optional(),
    matchInput: z.boolean({ error: 'must be a boolean' }).optional(),
  },
  { error: 'must be an object' },
);

function replay(entries: readonly unknown[], options: ReplayAgentsOptions): JournalReplay {
  throwIfAny('replayAgents', issuesAt(ReplayAgentsOptionsSchema, options, 'options'));
  const journal = readJournal(entries);
  if (Array.isArray(journal)) throw new ConfigError('replayAgents', journal);
  const { scheduler = asyncScheduler, matchInput = true } = options;
  const agents = new Map<string, ReplayAgent>();
  for (const [id, calls] of journal.calls) agents.set(id, replayAgent(id, calls, scheduler, matchInput));
  const unrecorded = new Map<string, ReplayAgent>();
  return {
    runId: journal.runId,
    root: journal.root,
    events: journal.events,
    agents,
    agent(id: string): ReplayAgent {
      const recorded = agents.get(id) ?? unrecorded.get(id);
      if (recorded !== undefined) return recorded;
      throwIfAny('replayAgents: agent', idIssues(id));
      const agent = replayAgent(id, [], scheduler, matchInput);
      unrecorded.set(id, agent);
      return agent;
    },
  };
}

function replayAgent(id: string, recorded: readonly JournalCall[], scheduler: SchedulerLike, matchInput: boolean): ReplayAgent {
  const agent = answeringAgent(id, {}, (input, _options, index) => {
    const call = recorded[index];
    if (call === undefined) throw new ReplayExhaustedError(id, index + 1, recorded.length);
    if (matchInput && !call.inputOmitted && call.input !== input) throw new ReplayInputMismatchError(id, index + 1, call.input, input);
    return playCall(call, scheduler);
  });
  return Object.defineProperties(agent, {
    recorded: { value: recorded, enumerable: true },
    remaining: { get: () => Math.max(0, recorded.length - agent.calls.length), enumerable: true },
  }) as ReplayAgent;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';
}

async function collect(journal: AsyncIterable<unknown>): Promise<unknown[]> {
  const entries: unknown[] = [];
  for await (const entry of journal) entries.push(entry);
  return entries;
}
