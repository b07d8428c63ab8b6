import { mergeMap, type OperatorFunction } from 'rxjs';
import { ConfigError } from '@rxagents/core';
import { ConditionalHandoff } from '../routing/ConditionalHandoff';
import type { HandoffContext } from '../context/HandoffContext';
import type { HandoffResult } from '../strategy/HandoffResult';
import { type HandoffOperatorOptions, splitOperatorOptions } from './handoffTo';

/**
 * Routes each incoming context with a {@link ConditionalHandoff} and emits each result.
 *
 * @remarks
 * The operator form of {@link ConditionalHandoff.execute$}. By default one context at a time, results in
 * arrival order (`concatMap`); with `concurrency` above 1, that many at once, results as they end
 * (`mergeMap`). A context no route takes gives a failure result with `toAgentId: 'none'`; the stream
 * never errors.
 *
 * @example
 * ```ts
 * import { of } from 'rxjs';
 * import { defineAgent } from '@rxagents/core';
 * import { ConditionalHandoff, HandoffContext, routeHandoff } from '@rxagents/handoff';
 *
 * const billing = defineAgent('billing', async () => 'paid');
 * const support = defineAgent('support', async () => 'hello');
 * const router = new ConditionalHandoff().when((context) => 'invoiceId' in context.payload, billing).otherwise(support);
 * of(HandoffContext.of('t-1', { invoiceId: '42' }), HandoffContext.of('t-2'))
 *   .pipe(routeHandoff(router, { from: { id: 'intake' } }))
 *   .subscribe((r) => console.log(r.toAgentId)); // billing, support
 * ```
 */
export function routeHandoff(routing: ConditionalHandoff, options: HandoffOperatorOptions = {}): OperatorFunction<HandoffContext, HandoffResult> {
  if (!(routing instanceof ConditionalHandoff)) throw new ConfigError('routeHandoff', [{ path: 'routing', rule: 'must be a ConditionalHandoff', received: routing }]);
  const { from, strategy, execute, concurrency } = splitOperatorOptions(options);
  return mergeMap((context) => routing.execute$(strategy, from, context, execute), concurrency);
}
