import { concatMap, type OperatorFunction } from 'rxjs';
import type { HandoffChain } from './HandoffChain';
import type { HandoffContext } from './HandoffContext';
import type { HandoffResult } from './HandoffResult';
import { type HandoffOperatorOptions, splitOperatorOptions } from './handoffTo';

/**
 * Runs each incoming context through a {@link HandoffChain}, one at a time, and emits each run's results.
 *
 * @remarks
 * The operator form of {@link HandoffChain.execute$}, built on `concatMap`: one array per context, in
 * arrival order (`from` is ignored: a chain's first agent is its source).
 *
 * @example
 * ```ts
 * import { of } from 'rxjs';
 * import { defineAgent } from '@rxagents/core';
 * import { HandoffChain, HandoffContext, handoffThrough } from '@rxagents/handoff';
 *
 * const agent = (id: string) => defineAgent(id, async () => id);
 * const chain = HandoffChain.builder().add(agent('intake')).add(agent('writer')).build();
 * of(HandoffContext.of('t-1')).pipe(handoffThrough(chain)).subscribe((results) => console.log(results.length)); // 1
 * ```
 */
export function handoffThrough(chain: HandoffChain, options: HandoffOperatorOptions = {}): OperatorFunction<HandoffContext, HandoffResult[]> {
  const { strategy, execute } = splitOperatorOptions(options);
  return concatMap((context) => chain.execute$(strategy, context, execute));
}
