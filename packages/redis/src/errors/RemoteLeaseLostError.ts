import { CoordinationError } from '@rxagents/core';

/**
 * A remote call whose caller's lease ran out before the call ended: the caller could not renew it for
 * longer than `leaseMs` (its event loop was blocked, or it was cut off from Redis), so the worker took the
 * caller for gone and stopped the agent.
 *
 * @remarks
 * Retryable: the call did not finish, and calling again starts a fresh call. The caller learns it either
 * from the worker's last reply (the worker says so before it drops the call) or from its own next renewal,
 * which finds the lease gone (a renewal never creates a lease again). Raise `leaseMs` on `remoteAgent`
 * above the longest stall a caller must survive.
 *
 * @example
 * ```ts
 * import { RemoteLeaseLostError } from '@rxagents/redis';
 *
 * const error = new RemoteLeaseLostError('writer', '6f1c2b1e-0c1d-4f5a-9b7e-2d3c4b5a6f70');
 * console.log(error.code, error.retryable); // REMOTE_LEASE_LOST true
 * ```
 */
export class RemoteLeaseLostError extends CoordinationError {
  /** The remote agent's id. */
  readonly agentId: string;
  /** The call's id. */
  readonly callId: string;

  constructor(agentId: string, callId: string) {
    super('REMOTE_LEASE_LOST', `Remote agent "${agentId}": call ${callId} lost its caller's lease (not renewed for leaseMs), so the worker stopped it; call again`, {
      retryable: true,
      context: { agentId, callId },
    });
    this.agentId = agentId;
    this.callId = callId;
  }
}
