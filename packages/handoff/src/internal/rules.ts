import { z } from 'zod';
import { ConfigError, configRules, MAX_COUNT, parseConfig, type Agent, type RunEventsOptions } from '@rxagents/core';
import type { HandoffPredicate } from '../chain/HandoffPredicate';

/** An agent: an object with a non-blank string id and a `chat` function. */
export const agentRule = () =>
  z.custom<Agent>((value) => isAgent(value), { error: 'must be an agent (an object with a non-blank id and a chat function)' });

const signedCountMessage = `must be an integer of at least -${MAX_COUNT} and at most ${MAX_COUNT}`;

/** An integer where `<= 0` means "off" or "unlimited" (PraisonAI style), bounded by `MAX_COUNT` either way. */
export const signedCountRule = () =>
  z
    .number({ error: 'must be an integer' })
    .int('must be an integer')
    .min(-MAX_COUNT, signedCountMessage)
    .max(MAX_COUNT, signedCountMessage);

/** A predicate function. */
export const predicateRule = () => z.custom<HandoffPredicate>((value) => typeof value === 'function', { error: 'must be a function' });

/** One chain step or route: an agent and, where given, a predicate. */
export const HandoffStepSchema = z.strictObject({ agent: agentRule(), predicate: predicateRule().optional() });

/** Whether `value` is a well-formed step (the fast path; the schema words the error). */
export function isStep(value: unknown, predicateRequired: boolean): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const step = value as { readonly agent?: unknown; readonly predicate?: unknown };
  for (const key in step) if (key !== 'agent' && key !== 'predicate') return false;
  if (!isAgent(step.agent)) return false;
  return step.predicate === undefined ? !predicateRequired : typeof step.predicate === 'function';
}

/** Whether `value` is an agent by {@link agentRule}. */
export function isAgent(value: unknown): value is Agent {
  return typeof value === 'object' && value !== null && isNonBlank((value as Agent).id) && typeof (value as Agent).chat === 'function';
}

/**
 * Whether `value` is a string with a character other than white space. Every handoff checks its source's
 * and receiver's ids: an id starting with a visible ASCII character answers without a regular expression.
 */
function isNonBlank(value: unknown): boolean {
  if (typeof value !== 'string' || value.length === 0) return false;
  const first = value.charCodeAt(0);
  return (first > 32 && first < 127) || /\S/.test(value);
}

/**
 * Remembers which agent holds each id, refusing a different agent under an id already seen: results and
 * chains name agents by id, so two agents sharing one would be told apart by nothing.
 */
export class DistinctAgentIds {
  readonly #seen = new Map<string, { readonly agent: Agent; readonly path: string }>();

  constructor(private readonly subject: string) {}

  add(agent: Agent, path: string): void {
    const earlier = this.#seen.get(agent.id);
    if (earlier === undefined) {
      this.#seen.set(agent.id, { agent, path });
      return;
    }
    if (earlier.agent === agent) return;
    throw new ConfigError(this.subject, [{ path, rule: `must not reuse the id "${agent.id}" of a different agent (${earlier.path})`, received: agent.id }]);
  }
}

/** Whether `source` has a non-blank string id (any object with one is a handoff's source). */
export function hasId(source: unknown): boolean {
  return typeof source === 'object' && source !== null && isNonBlank((source as { id?: unknown }).id);
}

/** Passed as the receiver to {@link checkHandoffCall} by a call whose receiver is picked later (a route). */
export const ROUTED: unique symbol = Symbol('routed');

/** Refuses a source without a non-blank id, a receiver that is not an agent, or a context that is not a `HandoffContext`. */
export function checkHandoffCall(subject: string, from: unknown, to: unknown, context: unknown, isContext: (value: unknown) => boolean): void {
  const issues = [];
  if (!hasId(from)) issues.push({ path: 'from', rule: 'must be an object with a non-blank id', received: from });
  if (to !== ROUTED && !isAgent(to)) issues.push({ path: 'to', rule: 'must be an agent (an object with a non-blank id and a chat function)', received: to });
  if (!isContext(context)) issues.push({ path: 'context', rule: 'must be a HandoffContext (build one with new HandoffContext or HandoffContext.of)', received: context });
  if (issues.length > 0) throw new ConfigError(subject, issues);
}

/** Refuses a `run` in the options of an `events$`: its events are a run of their own. */
export function refuseRun(subject: string, options: unknown): void {
  const run = typeof options === 'object' && options !== null ? (options as { readonly run?: unknown }).run : undefined;
  if (run !== undefined) {
    throw new ConfigError(subject, [{ path: 'run', rule: 'is not an option of events$, whose events are a run of their own (pass run to execute$ to report into yours)', received: run }]);
  }
}

const RunEventsOptionsSchema = configRules.runEventsOptions().extend(configRules.durableRunOptions().shape);

const RUN_KEYS = ['pace', 'store', 'runId', 'leaseTtlMs', 'leaseOwner'] as const;

const NO_RUN_OPTIONS: RunEventsOptions = Object.freeze({});

/**
 * Takes what `observeRun` is given (`pace`, what a slow reader gives, see `runEventStream`; `store`,
 * `runId`, `leaseTtlMs` and `leaseOwner`, which make the run durable) out of the options of an `events$`, refusing a
 * `run` there too; the rest go on to the handoff's own validation.
 */
export function splitEventsOptions<O extends object>(subject: string, options: (O & RunEventsOptions) | undefined): { readonly run: RunEventsOptions; readonly options: O | undefined } {
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new ConfigError(subject, [{ path: '', rule: 'must be an object', received: options }]);
  }
  refuseRun(subject, options);
  if (options === undefined || !RUN_KEYS.some((key) => key in options)) return { run: NO_RUN_OPTIONS, options };
  const { pace, store, runId, leaseTtlMs, leaseOwner, ...rest } = options;
  const given: Record<string, unknown> = {};
  if ('pace' in options) given.pace = pace;
  if ('store' in options) given.store = store;
  if ('runId' in options) given.runId = runId;
  if ('leaseTtlMs' in options) given.leaseTtlMs = leaseTtlMs;
  if ('leaseOwner' in options) given.leaseOwner = leaseOwner;
  return { run: parseConfig(RunEventsOptionsSchema, given, subject), options: rest as O };
}

/** Refuses a `handoff` argument that is not a handoff strategy (an object with an `execute$` function). */
export function checkStrategy(subject: string, handoff: unknown): void {
  if (typeof handoff !== 'object' || handoff === null || typeof (handoff as { readonly execute$?: unknown }).execute$ !== 'function') {
    throw new ConfigError(subject, [{ path: 'handoff', rule: 'must be a handoff strategy (an object with an execute$ function, such as new DefaultHandoff())', received: handoff }]);
  }
}

/** Refuses a `messages` argument that is not an array. */
export function checkMessages(subject: string, messages: unknown): void {
  if (!Array.isArray(messages)) throw new ConfigError(subject, [{ path: 'messages', rule: 'must be an array of messages', received: messages }]);
}

/** Refuses a `context` argument that is not an object (a predicate reading it would throw a `TypeError`). */
export function checkContextObject(subject: string, context: unknown): void {
  if (typeof context !== 'object' || context === null) throw new ConfigError(subject, [{ path: 'context', rule: 'must be an object', received: context }]);
}
