/**
 * What an agent did, as the {@link detectLivelock} operator reads it.
 *
 * @remarks
 * Each kind feeds the matching {@link LivelockDetector} method: `message` → `recordMessage`,
 * `state` → `recordStateChange`, `action` → `recordAction`.
 *
 * @example
 * ```ts
 * import type { LivelockEvent } from '@rxagents/choreography';
 *
 * const events: LivelockEvent[] = [
 *   { kind: 'message', agentId: 'planner', message: 'Let me re-plan.' },
 *   { kind: 'state', agentId: 'planner', state: 'planning' },
 *   { kind: 'action', agentId: 'planner', action: 'search:flights' },
 * ];
 * ```
 */
export type LivelockEvent =
  | { readonly kind: 'message'; readonly agentId: string; readonly message: string }
  | { readonly kind: 'state'; readonly agentId: string; readonly state: string }
  | { readonly kind: 'action'; readonly agentId: string; readonly action: string };
