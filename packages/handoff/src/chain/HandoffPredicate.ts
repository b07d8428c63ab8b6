import type { ObservableInput } from 'rxjs';
import type { HandoffContext } from '../context/HandoffContext';

/**
 * Decides whether a chain step runs or a route matches: a boolean now, or later (a Promise or an
 * Observable whose first value counts; one that completes empty counts as `false`).
 *
 * @example
 * ```ts
 * import type { HandoffPredicate } from '@rxagents/handoff';
 *
 * const isGerman: HandoffPredicate = (context) => context.metadata.language === 'de';
 * const isVip: HandoffPredicate = async (context) => context.payload.tier === 'vip';
 * ```
 */
export type HandoffPredicate = (context: HandoffContext) => boolean | ObservableInput<boolean>;
