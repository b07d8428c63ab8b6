import type { SchedulerLike } from 'rxjs';
import { z } from 'zod';
import { ConfigError, configRules, MAX_DELAY_MS, type Agent } from '@rxagents/core';
import type { HandoffEnabled } from './HandoffEnabled';
import type { HandoffApprovalContext, HandoffNeedsApproval } from './HandoffApproval';
import type { HandoffCondition } from './handoffFilters';
import { agentRule, signedCountRule } from '../internal/rules';
import type { HandoffOutcome, HandoffRunContext } from './HandoffOutcome';
import type { HandoffSource } from '../strategy/HandoffStrategy';
import { DEFAULT_HANDOFF_TOOL_POLICY, HandoffToolPolicySchema, type HandoffToolPolicy } from '../tools/HandoffToolPolicy';
import type { MessageFilter } from '../context/messageFilters';
import type { ContextPolicy, TokenCounter } from '../context/selectHandoffMessages';

/**
 * Everything {@link handoff} (or `new Handoff`) accepts: the target, how it is exposed as a tool, what it
 * sees, and the eight settings that bound it.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import type { HandoffConfig } from '@rxagents/handoff';
 *
 * const billing = defineAgent({ id: 'billing', name: 'Billing', chat: async () => 'paid' });
 * const config: HandoffConfig = {
 *   agent: billing,
 *   contextPolicy: 'last_n',
 *   maxContextMessages: 10,
 *   maxContextTokens: 4000,
 *   preserveSystem: true,
 *   timeout: 30_000,
 *   maxConcurrent: 3,
 *   detectCycles: true,
 *   maxDepth: 5,
 * };
 * ```
 */
export interface HandoffConfig {
  /** The target agent. */
  readonly agent: Agent;
  /** Overrides the generated tool name (`transfer_to_<name>`); 1 to 64 of `a-z A-Z 0-9 _ -`. */
  readonly name?: string;
  /** Overrides the generated tool description (`Transfer task to <name> (<role>) - <goal>`); `''` is kept, an empty description. */
  readonly description?: string;
  /** When a routing agent takes this handoff without asking a model. */
  readonly condition?: HandoffCondition;
  /**
   * Whether a routing agent offers this handoff on a call: a boolean, or a predicate (sync or async) over
   * the call ({@link HandoffEnabledContext}: source, target, input, history, metadata, chain, run). While
   * disabled, the handoff is neither among the model's tools nor matched by its `condition`. Asked once per
   * routing call. Defaults to `true`.
   */
  readonly isEnabled?: HandoffEnabled;
  /**
   * Whether a person must allow the transfer: a boolean, or a predicate (sync or async) over the handoff
   * about to happen ({@link HandoffApprovalContext}: the call's facts plus the validated `arguments`).
   * When it needs approval, after the guards pass and before the target is touched, the handoff asks
   * `askForApproval(run, toolName, { from, to, input, arguments })` in its run; approved, it goes on;
   * refused, it fails with `HandoffRejectedError` (the person's reason in `reason`) and the target never
   * runs. Without a run to ask in, it fails with `HandoffApprovalUnavailableError`. Defaults to `false`.
   */
  readonly needsApproval?: HandoffNeedsApproval;
  /** How long an approval waits, in ms on the run's scheduler; unanswered by then it is a refusal ("Not answered in time"). Defaults to waiting for ever. */
  readonly approvalTimeout?: number;
  /** The tool's parameters (zod); arguments that do not fit fail with `HandoffValidationError`. */
  readonly inputSchema?: z.ZodType;
  /** What the target sees. Defaults to `'summary'` (the last 3 messages). */
  readonly contextPolicy?: ContextPolicy;
  /** Slice size for `last_n` only; `<= 0` keeps everything. Defaults to 10. */
  readonly maxContextMessages?: number;
  /** Token ceiling applied last, dropping the oldest first; `<= 0` disables. Defaults to 4000. */
  readonly maxContextTokens?: number;
  /** Keep `system` messages regardless of slice or token budget. Defaults to `true`. */
  readonly preserveSystem?: boolean;
  /** Bounds the target's turn, in ms: greater than 0 and at most `MAX_DELAY_MS` (about 24.8 days), or `Infinity` for none. Defaults to 300,000 (5 minutes). */
  readonly timeout?: number;
  /**
   * The same bound in seconds (at most 2,147,483.647); `<= 0` or `Infinity` disables. Converted to
   * `timeout` once, when the handoff is built; giving both is a `ConfigError` unless they agree.
   */
  readonly timeoutSeconds?: number;
  /** This instance's semaphore; `<= 0` is unlimited. Defaults to 5. Not process-wide. */
  readonly maxConcurrent?: number;
  /** Refuse a target already in the chain. Defaults to `true`. */
  readonly detectCycles?: boolean;
  /** Refuse when the chain is already this deep. Defaults to 10. */
  readonly maxDepth?: number;
  /** Counts a message's tokens for `maxContextTokens`. Defaults to about 4 characters a token. */
  readonly countTokens?: TokenCounter;
  /** Transforms the history before the context policy selects from it (see `messageFilters`). */
  readonly inputFilter?: MessageFilter;
  /** Which tools the target keeps. Defaults to `DEFAULT_HANDOFF_TOOL_POLICY` (`intersect`, nothing blocked); a policy without `mode` intersects. */
  readonly toolPolicy?: HandoffToolPolicy;
  /** Called after the guards pass (and the approval, with `needsApproval`), before the target runs. A throwing callback changes nothing; its error is reported as unhandled (RxJS's `config.onUnhandledError`). */
  readonly onHandoff?: (source: HandoffSource, context: HandoffRunContext) => void;
  /** Called with each successful outcome. A throwing callback changes nothing; its error is reported as unhandled. */
  readonly onComplete?: (outcome: HandoffOutcome) => void;
  /** Called with each failure: a guard's error or the target's. A throwing callback changes nothing; its error is reported as unhandled. */
  readonly onError?: (error: unknown) => void;
  /** The clock for `timeout` and `durationMs`. Defaults to `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

const timeoutSecondsMessage = `must be a number of seconds of at most ${MAX_DELAY_MS / 1000} (about 24.8 days), 0 or less for no timeout, or Infinity for no timeout`;

/**
 * The core rule for timer-valued options, in seconds: a longer finite timeout would reach Node's timers
 * as more than `MAX_DELAY_MS` and fire after 1 ms, so it is refused; `Infinity` and `<= 0` mean none.
 */
function timeoutSecondsRule() {
  return z
    .union([z.number(), z.literal(Infinity)], { error: timeoutSecondsMessage })
    .refine((seconds) => seconds === Infinity || (Number.isFinite(seconds) && seconds * 1000 <= MAX_DELAY_MS), timeoutSecondsMessage);
}

const zodSchemaRule = z.custom<z.ZodType>((value) => value instanceof z.ZodType, { error: 'must be a zod schema' });

/**
 * The zod schema of {@link HandoffConfig}, with the PraisonAI defaults.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { HandoffConfigSchema } from '@rxagents/handoff';
 *
 * // The settings part as JSON Schema, for a settings form.
 * const settings = HandoffConfigSchema.pick({ contextPolicy: true, maxDepth: true, timeout: true });
 * console.log(JSON.stringify(z.toJSONSchema(settings, { io: 'input' })));
 * ```
 */
export const HandoffConfigSchema = z.strictObject({
  agent: agentRule(),
  name: z.string({ error: 'must be a string' }).regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, _ or -').optional(),
  description: z.string({ error: 'must be a string' }).optional(),
  condition: configRules.function<HandoffCondition>().optional(),
  isEnabled: z
    .union([z.boolean(), configRules.function<Exclude<HandoffEnabled, boolean>>()], { error: 'must be a boolean or a function' })
    .default(true),
  needsApproval: z
    .union([z.boolean(), configRules.function<Exclude<HandoffNeedsApproval, boolean>>()], { error: 'must be a boolean or a function' })
    .default(false),
  approvalTimeout: configRules.timeoutMs().optional(),
  inputSchema: zodSchemaRule.optional(),
  contextPolicy: z.enum(['none', 'last_n', 'summary', 'full']).default('summary'),
  maxContextMessages: signedCountRule().default(10),
  maxContextTokens: signedCountRule().default(4000),
  preserveSystem: z.boolean({ error: 'must be a boolean' }).default(true),
  timeout: configRules.timeoutMs().optional(),
  timeoutSeconds: timeoutSecondsRule().optional(),
  maxConcurrent: signedCountRule().default(5),
  detectCycles: z.boolean({ error: 'must be a boolean' }).default(true),
  maxDepth: configRules.nonNegativeInt().default(10),
  countTokens: configRules.function<TokenCounter>().optional(),
  inputFilter: configRules.function<MessageFilter>().optional(),
  toolPolicy: HandoffToolPolicySchema.default(DEFAULT_HANDOFF_TOOL_POLICY),
  onHandoff: configRules.function<NonNullable<HandoffConfig['onHandoff']>>().optional(),
  onComplete: configRules.function<NonNullable<HandoffConfig['onComplete']>>().optional(),
  onError: configRules.function<NonNullable<HandoffConfig['onError']>>().optional(),
  scheduler: configRules.scheduler().optional(),
});

/** The default `timeout`: 5 minutes. */
const DEFAULT_TIMEOUT_MS = 300_000;

/**
 * Resolves `timeout` (ms, canonical) and `timeoutSeconds` into one value, in ms: the one boundary where
 * seconds are converted. Throws a `ConfigError` when both are given and disagree.
 */
export function resolveHandoffTimeout(config: { readonly timeout?: number | undefined; readonly timeoutSeconds?: number | undefined }): { timeout: number; timeoutSeconds: number } {
  const { timeout, timeoutSeconds } = config;
  // seconds * 1000 <= MAX_DELAY_MS is what timeoutSecondsRule checked, so the product is a valid timer delay.
  const fromSeconds = timeoutSeconds === undefined ? undefined : timeoutSeconds <= 0 || timeoutSeconds === Infinity ? Infinity : timeoutSeconds * 1000;
  if (timeout !== undefined && fromSeconds !== undefined && !sameMs(timeout, fromSeconds)) {
    throw new ConfigError('Handoff config', [
      { path: 'timeoutSeconds', rule: `must agree with timeout (${timeout} ms) when both are given; give only timeout`, received: timeoutSeconds },
    ]);
  }
  const ms = timeout ?? fromSeconds ?? DEFAULT_TIMEOUT_MS;
  return { timeout: ms, timeoutSeconds: timeoutSeconds ?? ms / 1000 };
}

function sameMs(a: number, b: number): boolean {
  return a === b || Math.abs(a - b) < 1e-6;
}

/**
 * A {@link HandoffConfig} with every default applied.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { handoff, type ResolvedHandoffConfig } from '@rxagents/handoff';
 *
 * const config: ResolvedHandoffConfig = handoff({ agent: defineAgent('billing', async () => 'paid') }).config;
 * console.log(config.contextPolicy, config.maxDepth, config.timeout, config.timeoutSeconds); // summary 10 300000 300
 * ```
 */
export type ResolvedHandoffConfig = Omit<z.output<typeof HandoffConfigSchema>, 'timeout' | 'timeoutSeconds'> & {
  /** The bound on the target's turn, in ms (`Infinity` for none). */
  readonly timeout: number;
  /** The same bound in seconds: as given, or `timeout / 1000`. */
  readonly timeoutSeconds: number;
};
