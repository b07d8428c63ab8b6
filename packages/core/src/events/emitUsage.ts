import { ConfigError } from '../errors/ConfigError';
import { checkNode } from '../internal/checkNode';
import type { RunContext } from './RunContext';

/**
 * Token counts a model reported for one call, as {@link emitUsage} takes them.
 *
 * @example
 * ```ts
 * import type { UsageReport } from '@rxagents/core';
 *
 * const usage: UsageReport = { agentId: 'billing', inputTokens: 120, outputTokens: 48 };
 * console.log(usage.agentId); // billing
 * ```
 */
export interface UsageReport {
  /** The agent whose model used the tokens. */
  readonly agentId: string;
  readonly inputTokens?: number | undefined;
  readonly outputTokens?: number | undefined;
  readonly totalTokens?: number | undefined;
}

/**
 * Emits a `usage` event into a run, under the call `run` belongs to: how a model adapter reports tokens.
 *
 * @remarks
 * Counts that are not whole non-negative numbers are left out (a provider that does not report one).
 * Does nothing when `run` is `undefined`, so an agent can call it with its `ChatOptions.run` always. An
 * `agentId` that is not a string is a `ConfigError`, with or without a run: the event would fail
 * `RunEventSchema` wherever it is read. A context above the run's root (`callId: null`, made by hand) has
 * no node to report under and is refused.
 *
 * @param run - The run context, usually `ChatOptions.run`.
 * @param usage - The agent and its token counts.
 * @throws `ConfigError` when `usage.agentId` is not a string or `run.callId` is `null`.
 *
 * @example
 * ```ts
 * import { defineAgent, emitUsage, invoke$, observeRun } from '@rxagents/core';
 *
 * const model = defineAgent('model', async (input, { run }) => {
 *   emitUsage(run, { agentId: 'model', inputTokens: input.length, outputTokens: 2 });
 *   return 'ok';
 * });
 * observeRun('r', 'hello', (run) => invoke$(model, 'hello', { run })).subscribe((event) => {
 *   if (event.type === 'usage') console.log(event.inputTokens, event.outputTokens); // 5 2
 * });
 * ```
 */
export function emitUsage(run: RunContext | undefined, usage: UsageReport): void {
  const agentId: unknown = (usage as Partial<UsageReport> | null)?.agentId;
  if (typeof agentId !== 'string') throw new ConfigError('emitUsage', [{ path: 'agentId', rule: 'must be a string', received: agentId }]);
  if (run === undefined) return;
  checkNode(run, 'emitUsage');
  const event: {
    type: 'usage';
    runId: string;
    callId: string;
    parentCallId: string | null;
    at: number;
    agentId: string;
    inputTokens?: number;
    outputTokens?: number;
    totalTokens?: number;
  } = { type: 'usage', runId: run.runId, callId: run.callId, parentCallId: run.parentCallId, at: run.scheduler.now(), agentId: usage.agentId };
  if (isCount(usage.inputTokens)) event.inputTokens = usage.inputTokens;
  if (isCount(usage.outputTokens)) event.outputTokens = usage.outputTokens;
  if (isCount(usage.totalTokens)) event.totalTokens = usage.totalTokens;
  run.emit(event);
}

function isCount(value: number | undefined): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
