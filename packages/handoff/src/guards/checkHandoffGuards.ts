import { HandoffCycleError } from '../errors/HandoffCycleError';
import { HandoffDepthError } from '../errors/HandoffDepthError';

/**
 * Refuses a handoff to `targetId` along `path` (the chain before it, then the sender) with a
 * {@link HandoffCycleError} when `detectCycles` and the target is on the path, or a
 * {@link HandoffDepthError} when the chain is already `maxDepth` deep (`depth`: its declared depth).
 */
export function checkHandoffGuards(path: readonly string[], targetId: string, detectCycles: boolean, depth: number, maxDepth: number): void {
  if (detectCycles && path.includes(targetId)) throw new HandoffCycleError([...path, targetId]);
  if (depth >= maxDepth) throw new HandoffDepthError(maxDepth, depth, { sourceAgentId: path.at(-1), targetAgentId: targetId });
}
