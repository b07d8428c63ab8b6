import { AgentError, type SerializedError, serializeError } from '@rxagents/core';
import type { ReplyEntry } from './protocol';

/** The code of a worker's last reply to a call whose caller's lease ran out (the caller's `RemoteLeaseLostError`). */
export const LEASE_LOST = 'REMOTE_LEASE_LOST';

/** The last reply of a call stopped because its caller's lease ran out: the caller fails with `RemoteLeaseLostError`. */
export function leaseLostReply(attempt: number, seq: number): string {
  const error = { name: 'RemoteLeaseLostError', message: "the caller's lease ran out (not renewed for its leaseMs), so the worker stopped the call", code: LEASE_LOST, retryable: true };
  return JSON.stringify({ kind: 'error', attempt: Math.max(attempt, 1), seq, error, exhausted: false } satisfies ReplyEntry);
}

/** The last reply of a call whose reply stream expired while its worker stalled, so that its caller does not wait. */
export function streamMissingReply(attempt: number, seq: number): string {
  const error = { name: 'CoordinationError', message: "the call's reply stream expired while the worker stalled (longer than replyTtlMs); raise serveAgent's replyTtlMs", code: 'REMOTE_REPLY_EXPIRED', retryable: true };
  return JSON.stringify({ kind: 'error', attempt: Math.max(attempt, 1), seq, error, exhausted: false } satisfies ReplyEntry);
}

/** The agent's own failure, without the worker-side `AgentError` wrapper the caller adds again; its retryable flag kept. */
export function remoteError(error: unknown): SerializedError {
  if (!(error instanceof AgentError) || error.cause === undefined) return serializeError(error);
  return { ...serializeError(error.cause), retryable: error.retryable };
}
