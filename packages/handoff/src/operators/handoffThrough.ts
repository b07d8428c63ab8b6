import { mergeMap, type OperatorFunction } from 'rxjs';
import { ConfigError } from '@rxagents/core';
import { HandoffChain } from '../chain/HandoffChain';
import type { HandoffContext } from '../context/HandoffContext';
import type { HandoffResult } from '../strategy/HandoffResult';
import { type HandoffOperatorOptions, splitOperatorOptions } from './handoffTo';

/**
 * Runs each incoming context through a {@link HandoffChain} and emits each run's results.
 *
 * @remarks
 * The operator form of {@link HandoffChain.execute$}: one array per context. By default one context at a
 * time, in arrival order (`concatMap`); with `concurrency` above 1, that many at once, each array as its
 * run ends (`mergeMap`). `from` is ignored: a chain's first agent is its source.
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
  if (!(chain instanceof HandoffChain)) throw new ConfigError('handoffThrough', [{ path: 'chain', rule: 'must be a HandoffChain (build one with HandoffChain.builder())', received: chain }]);
  const { strategy, execute, concurrency } = splitOperatorOptions(options);
  return mergeMap((context) => chain.execute$(strategy, context, execute), concurrency);
}
