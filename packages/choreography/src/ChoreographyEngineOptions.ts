import { type Agent, configRules } from '@rxagents/core';
import { z } from 'zod';
import type { ChoreographyLogger } from './ChoreographyLogger';
import { ChoreographySpec } from './ChoreographySpec';
import type { EventBus } from './EventBus';
import { checkCoverage } from './internal/checkCoverage';

const agentId = configRules.id();

const isAgent = (value: unknown): value is Agent =>
  typeof value === 'object' && value !== null && typeof (value as Agent).chat === 'function';

const agentsRule = z.custom<ReadonlyMap<string, Agent> | Readonly<Record<string, Agent>>>(
  (value) => {
    if (value instanceof Map) return [...value.values()].every(isAgent);
    return typeof value === 'object' && value !== null && Object.values(value).every(isAgent);
  },
  { error: 'must be a Map or record of agents (objects with a chat function)' },
);

const eventName = configRules.id();

const loggerRule = z.custom<ChoreographyLogger>(
  (value) => typeof value === 'object' && value !== null && typeof (value as ChoreographyLogger).warn === 'function',
  { error: 'must have a warn(message) method' },
);

const busRule = z.custom<EventBus>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as EventBus).publish === 'function' &&
    typeof (value as EventBus).close === 'function' &&
    typeof (value as EventBus).events$?.subscribe === 'function',
  { error: 'must be an EventBus (events$, publish, close)' },
);

/**
 * The fields of the engine options, without the cross-field checks: shared with {@link executeChoreography}.
 *
 * @internal
 */
export const engineOptionsShape = {
  spec: z.custom<ChoreographySpec>((value) => value instanceof ChoreographySpec, { error: 'must be a ChoreographySpec' }),
  agents: agentsRule.optional(),
  remoteAgents: z.array(agentId, { error: 'must be a list of agent ids' }).readonly().optional(),
  externalEvents: z.array(eventName, { error: 'must be a list of event names' }).readonly().optional(),
  timeout: configRules.timeoutMs().default(300_000),
  scheduler: configRules.scheduler().optional(),
  logger: loggerRule.optional(),
  bus: busRule.optional(),
};

/**
 * The cross-field checks of the engine options: agent ids, and every target and trigger covered.
 *
 * @internal
 */
export function checkEngineOptions(
  options: { readonly spec: ChoreographySpec; readonly agents?: ReadonlyMap<string, Agent> | Readonly<Record<string, Agent>> | undefined; readonly remoteAgents?: readonly string[] | undefined; readonly externalEvents?: readonly string[] | undefined },
  context: z.RefinementCtx,
): void {
  const { agents } = options;
  // zod may run this after a field failed its own rule; the coverage check needs valid fields.
  if (!(options.spec instanceof ChoreographySpec)) return;
  if (options.remoteAgents !== undefined && !Array.isArray(options.remoteAgents)) return;
  if (options.externalEvents !== undefined && !Array.isArray(options.externalEvents)) return;
  const ids = agents instanceof Map ? [...agents.keys()] : Object.keys(agents ?? {});
  let idsValid = true;
  for (const id of ids) {
    if (!agentId.safeParse(id).success) {
      idsValid = false;
      context.addIssue({ code: 'custom', path: ['agents', id], message: 'must be a non-blank string', input: id });
    }
  }
  if (!idsValid) return;
  checkCoverage(
    { spec: options.spec, agentIds: ids as string[], remoteAgents: options.remoteAgents ?? [], externalEvents: options.externalEvents ?? [] },
    context,
  );
}

/**
 * The zod schema of {@link ChoreographyEngineOptions}.
 *
 * @remarks
 * `timeout` defaults to 5 minutes (300,000 ms), long enough for a few model calls in a row;
 * it may be at most `MAX_DELAY_MS` (about 24.8 days), or `Infinity` for a run with no time limit.
 * `agents` maps the ids interactions name as `target` to agents; a Map or a plain record, keyed by
 * non-blank ids. Every `target` must be one of them or be listed in `remoteAgents` (agents another
 * engine runs, on a bus shared with it), and every interaction must be triggerable: each of its
 * triggers is an initial event, one of `externalEvents` (published on the bus by something outside
 * the spec), or the `emits` of an interaction that is itself triggerable. `logger` needs a `warn`
 * method; `bus` needs `events$`, `publish` and `close`.
 *
 * @example
 * ```ts
 * import { ChoreographyEngineOptionsSchema, ChoreographySpec } from '@rxagents/choreography';
 * import { defineAgent } from '@rxagents/core';
 *
 * const spec = ChoreographySpec.builder('ping').initialEvent('go').interaction('ping', 'a', 'b', 'go', null, 'Say ping').build();
 * console.log(ChoreographyEngineOptionsSchema.parse({ spec, agents: { b: defineAgent('b', async () => 'ping') } }).timeout); // 300000
 * console.log(ChoreographyEngineOptionsSchema.safeParse({ spec }).success); // false: no agent for target b
 * console.log(ChoreographyEngineOptionsSchema.safeParse({ spec, remoteAgents: ['b'] }).success); // true: b runs elsewhere
 * ```
 */
export const ChoreographyEngineOptionsSchema = z.strictObject(engineOptionsShape).superRefine(checkEngineOptions);

/**
 * The settings of a {@link ChoreographyEngine}; see {@link ChoreographyEngineOptionsSchema}.
 *
 * @remarks
 * Only `spec` is required. `agents` maps each interaction `target` to an agent, `remoteAgents` lists
 * the targets another engine runs, `externalEvents` the events something outside the spec publishes on
 * the bus, `timeout` bounds the whole run in ms (default 300,000), and `scheduler`, `logger` and `bus`
 * replace the clock, the console and the in-memory event bus. {@link ChoreographyEngine.builder} assembles the same object step by step.
 *
 * @example
 * ```ts
 * import { ChoreographyEngine, ChoreographySpec, type ChoreographyEngineOptions } from '@rxagents/choreography';
 * import { defineAgent } from '@rxagents/core';
 *
 * const spec = ChoreographySpec.builder('ping').initialEvent('go').interaction('ping', 'a', 'b', 'go', null, 'Say ping').build();
 * const options: ChoreographyEngineOptions = {
 *   spec,
 *   agents: { b: defineAgent('b', async () => 'ping') },
 *   timeout: 10_000,
 *   logger: { warn: (message) => console.warn(`[choreography] ${message}`) },
 * };
 * console.log((await new ChoreographyEngine(options).execute()).success); // true
 * ```
 */
export type ChoreographyEngineOptions = z.input<typeof ChoreographyEngineOptionsSchema>;
