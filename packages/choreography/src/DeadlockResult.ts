/**
 * What {@link DeadlockDetector} found.
 *
 * @example
 * ```ts
 * import { DeadlockDetector, type DeadlockResult } from '@rxagents/choreography';
 *
 * const result: DeadlockResult = DeadlockDetector.detectFromWaitGraph({ a: ['b'], b: ['a'] });
 * console.log(result.cycles); // [ [ 'a', 'b' ] ]
 * ```
 */
export interface DeadlockResult {
  /** Elementary cycles, each as the ids along it (`['a', 'b']` is a -> b -> a), at most `maxCycles`. */
  readonly cycles: readonly (readonly string[])[];
  /** Whether the graph has any cycle, decided exactly whatever `maxCycles` is. */
  readonly hasDeadlock: boolean;
  /** Whether more cycles exist than `cycles` lists. */
  readonly truncated: boolean;
}
