import { z } from 'zod';
import { ConfigError, configRules, parseConfig } from '@rxagents/core';

/**
 * What a {@link HandoffContext} is built from.
 *
 * @remarks
 * `chain`, `depth` and `max_depth` are PraisonAI's legacy spellings, accepted so Python-shaped
 * snippets keep working: `chain` is `handoffChain`, `max_depth` is `maxDepth`, and `depth` declares how
 * deep the chain already is when its agent ids are not known.
 *
 * @example
 * ```ts
 * import { HandoffContext, type HandoffContextInit } from '@rxagents/handoff';
 *
 * const legacy: HandoffContextInit = { taskId: 't-1', chain: ['intake'], max_depth: 3 };
 * console.log(new HandoffContext(legacy).handoffChain); // [ 'intake' ]
 * ```
 */
export interface HandoffContextInit<P extends HandoffPayload = HandoffPayload> {
  /** The task's id; required, non-blank. */
  readonly taskId: string;
  /** What the receiver works on. `null` or missing becomes `{}`. */
  readonly payload?: P | null;
  /** Facts about the task (language, tenant, ...). `null` or missing becomes `{}`. */
  readonly metadata?: Readonly<Record<string, unknown>> | null;
  /** The id of the handoff this one continues, if any. */
  readonly parentHandoffId?: string | null;
  /** The agent ids already traversed, oldest first; unset means "the chain in force". */
  readonly handoffChain?: readonly string[];
  /** Legacy alias of `handoffChain`. */
  readonly chain?: readonly string[];
  /** Legacy: how many handoffs were already made, when the chain's ids are unknown. */
  readonly depth?: number;
  /**
   * The depth limit for handing this context off, as a `HandoffRequest`'s `maxDepth` is for `handoff()`:
   * a {@link DefaultHandoff} (so a chain, a router or an operator using one) gives a failure result carrying
   * a {@link HandoffDepthError}, without touching the receiver, when the chain before the sender
   * (`handoffChain`, else the chain in scope; at least the declared `depth`) is already this deep. Unset:
   * no limit. A {@link HandoffStrategy} of your own applies it or not.
   */
  readonly maxDepth?: number;
  /** Legacy alias of `maxDepth`. */
  readonly max_depth?: number;
}

/**
 * The zod schema of {@link HandoffContextInit}.
 *
 * @example
 * ```ts
 * import { HandoffContextInitSchema } from '@rxagents/handoff';
 *
 * console.log(HandoffContextInitSchema.safeParse({ taskId: '' }).success); // false
 * ```
 */
export const HandoffContextInitSchema = z.strictObject({
  taskId: configRules.id(),
  payload: z.record(z.string(), z.unknown()).nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  parentHandoffId: configRules.id().nullish(),
  handoffChain: z.array(configRules.id()).readonly().optional(),
  chain: z.array(configRules.id()).readonly().optional(),
  depth: configRules.nonNegativeInt().optional(),
  maxDepth: configRules.nonNegativeInt().optional(),
  max_depth: configRules.nonNegativeInt().optional(),
});

/**
 * What a {@link HandoffContext} carries to its receiver: a read-only record of named values.
 *
 * @example
 * ```ts
 * import type { HandoffPayload } from '@rxagents/handoff';
 *
 * const payload: HandoffPayload = { invoiceId: '42', amount: 120 };
 * ```
 */
export type HandoffPayload = Readonly<Record<string, unknown>>;

const EMPTY: HandoffPayload = Object.freeze({});
const TRUSTED = Symbol('trusted');

interface ContextFields {
  readonly taskId: string;
  readonly payload: HandoffPayload;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly parentHandoffId: string | undefined;
  readonly handoffChain: readonly string[] | undefined;
  readonly declaredDepth: number | undefined;
  readonly maxDepth: number | undefined;
}

/**
 * The immutable record a handoff carries to its receiver: task id, payload, metadata, parent id.
 *
 * @remarks
 * The receiver gets only this context, never the sender's history. Missing or `null` maps become empty
 * frozen maps; every field is read-only and `withPayload` returns a copy. `handoffChain` is optional:
 * leave it unset and the chain in force for the current execution is used (see
 * {@link currentHandoffChain}); set it to resume a chain that crossed a process boundary.
 *
 * The type parameter `P` is the payload's shape, inferred from `HandoffContext.of(id, payload)`, the
 * constructor and `withPayload`, so `context.payload.invoiceId` is typed; code that takes any context
 * uses the default, a record of unknown values.
 *
 * @throws {@link @rxagents/core!ConfigError | ConfigError} from the constructor when `taskId` is blank, a field has the wrong type, or a key is
 * not one of {@link HandoffContextInit}'s (the message names the likely intended key).
 *
 * @example
 * ```ts
 * import { HandoffContext } from '@rxagents/handoff';
 *
 * const start = new HandoffContext({ taskId: 'invoice-42', payload: { document: 'Invoice text ...' }, metadata: { language: 'de' } });
 * const next = HandoffContext.of('ticket-7').withPayload('invoiceId', '42');
 * console.log(start.metadata.language, next.payload.invoiceId); // de 42
 * ```
 */
export class HandoffContext<P extends HandoffPayload = HandoffPayload> {
  /** The task's id. */
  readonly taskId: string;
  /** What the receiver works on (frozen). */
  readonly payload: Readonly<P>;
  /** Facts about the task (frozen). */
  readonly metadata: Readonly<Record<string, unknown>>;
  /** The id of the handoff this one continues, if any. */
  readonly parentHandoffId: string | undefined;
  /** The agent ids already traversed, oldest first, when set explicitly. */
  readonly handoffChain: readonly string[] | undefined;
  /** The depth limit for handing this context off (see {@link HandoffContextInit.maxDepth}); kept by every copy. */
  readonly maxDepth: number | undefined;
  private readonly declaredDepth: number | undefined;

  constructor(init: HandoffContextInit<P>);
  /** @internal */
  constructor(init: ContextFields, trusted: typeof TRUSTED);
  constructor(init: HandoffContextInit<P> | ContextFields, trusted?: typeof TRUSTED) {
    const fields = trusted === TRUSTED ? (init as ContextFields) : normalise(init as HandoffContextInit);
    this.taskId = fields.taskId;
    this.payload = fields.payload as Readonly<P>;
    this.metadata = fields.metadata;
    this.parentHandoffId = fields.parentHandoffId;
    this.handoffChain = fields.handoffChain;
    this.maxDepth = fields.maxDepth;
    this.declaredDepth = fields.declaredDepth;
    Object.freeze(this);
  }

  /**
   * A context with a task id and, optionally, a payload.
   *
   * @example
   * ```ts
   * import { HandoffContext } from '@rxagents/handoff';
   *
   * const context = HandoffContext.of('ticket-7', { invoiceId: '42' });
   * console.log(context.payload.invoiceId); // 42
   * ```
   */
  static of<P extends HandoffPayload = HandoffPayload>(taskId: string, payload?: P): HandoffContext<P> {
    return new HandoffContext<P>(payload === undefined ? { taskId } : { taskId, payload });
  }

  /** How many handoffs were made before this context: the declared `depth`, else the chain's length, else 0. */
  get depth(): number {
    return this.declaredDepth ?? this.handoffChain?.length ?? 0;
  }

  /** Legacy alias of {@link HandoffContext.handoffChain}. */
  get chain(): readonly string[] | undefined {
    return this.handoffChain;
  }

  /**
   * A copy with one more payload entry (or one entry replaced).
   *
   * @example
   * ```ts
   * import { HandoffContext } from '@rxagents/handoff';
   *
   * const base = HandoffContext.of('t-1');
   * const more = base.withPayload('priority', 'high');
   * console.log(Object.keys(base.payload).length, more.payload.priority); // 0 high
   * ```
   */
  withPayload<K extends string, V>(key: K, value: V): HandoffContext<P & { readonly [k in K]: V }> {
    if (typeof key !== 'string') throw new ConfigError('HandoffContext.withPayload', [{ path: 'key', rule: 'must be a string', received: key }]);
    return this.copy({ payload: Object.freeze({ ...this.payload, [key]: value }) });
  }

  /**
   * A copy whose payload is replaced by `payload` (what a chain does between steps).
   *
   * @example
   * ```ts
   * import { HandoffContext } from '@rxagents/handoff';
   *
   * const next = HandoffContext.of('t-1', { document: '...' }).withPayloadReplaced({ previousOutput: 'summary' });
   * console.log(next.payload); // { previousOutput: 'summary' }
   * ```
   */
  withPayloadReplaced<Q extends HandoffPayload>(payload: Q): HandoffContext<Q> {
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      throw new ConfigError('HandoffContext.withPayloadReplaced', [{ path: 'payload', rule: 'must be an object', received: payload }]);
    }
    return this.copy({ payload: Object.freeze({ ...payload }) });
  }

  /**
   * A copy whose payload is just `{ previousOutput }`: what a {@link HandoffChain} passes to its next step.
   *
   * @example
   * ```ts
   * import { HandoffContext } from '@rxagents/handoff';
   *
   * console.log(HandoffContext.of('t-1', { document: '...' }).withPreviousOutput('fields').payload); // { previousOutput: 'fields' }
   * ```
   */
  withPreviousOutput(previousOutput: string | null): HandoffContext<{ readonly previousOutput: string | null }> {
    if (typeof previousOutput !== 'string' && previousOutput !== null) {
      throw new ConfigError('HandoffContext.withPreviousOutput', [{ path: 'previousOutput', rule: 'must be a string or null', received: previousOutput }]);
    }
    return new HandoffContext(
      {
        taskId: this.taskId,
        payload: Object.freeze({ previousOutput }),
        metadata: this.metadata,
        parentHandoffId: this.parentHandoffId,
        handoffChain: this.handoffChain,
        declaredDepth: this.declaredDepth,
        maxDepth: this.maxDepth,
      },
      TRUSTED,
    );
  }

  /**
   * A copy with an explicit handoff chain.
   *
   * @throws {@link @rxagents/core!ConfigError | ConfigError} when `handoffChain` is not an array of non-blank ids, as the constructor does.
   *
   * @example
   * ```ts
   * import { HandoffContext } from '@rxagents/handoff';
   *
   * const resumed = HandoffContext.of('t-1').withHandoffChain(['intake', 'triage']);
   * console.log(resumed.depth); // 2
   * ```
   */
  withHandoffChain(handoffChain: readonly string[]): HandoffContext<P> {
    parseConfig(HandoffContextInitSchema.pick({ handoffChain: true }).required(), { handoffChain }, 'HandoffContext.withHandoffChain');
    return this.copy({ handoffChain: Object.freeze([...handoffChain]), declaredDepth: undefined });
  }

  private copy<Q extends HandoffPayload = P>(changes: Partial<ContextFields>): HandoffContext<Q> {
    return new HandoffContext<Q>(
      {
        taskId: this.taskId,
        payload: this.payload,
        metadata: this.metadata,
        parentHandoffId: this.parentHandoffId,
        handoffChain: this.handoffChain,
        declaredDepth: this.declaredDepth,
        maxDepth: this.maxDepth,
        ...changes,
      },
      TRUSTED,
    );
  }
}

function normalise(init: HandoffContextInit): ContextFields {
  const parsed = parseConfig(HandoffContextInitSchema, init, 'HandoffContext');
  const chain = parsed.handoffChain ?? parsed.chain;
  return {
    taskId: parsed.taskId,
    // Copied from the input, not zod's output: spreading keeps an own "__proto__" key as data.
    payload: init.payload ? Object.freeze({ ...init.payload }) : EMPTY,
    metadata: init.metadata ? Object.freeze({ ...init.metadata }) : EMPTY,
    parentHandoffId: parsed.parentHandoffId ?? undefined,
    handoffChain: chain === undefined ? undefined : Object.freeze([...chain]),
    declaredDepth: parsed.depth,
    maxDepth: parsed.maxDepth ?? parsed.max_depth,
  };
}
