import { CoordinationError, RunStoreError } from '@rxagents/core';

/** Error replies of a Redis that may answer otherwise soon: loading, busy, failing over, out of memory. */
const PASSING_REPLY = /^(LOADING|BUSY|TRYAGAIN|CLUSTERDOWN|MASTERDOWN|READONLY|NOREPLICAS|OOM)\b/;

/**
 * What a run store operation rejects with when Redis failed it: toolkit errors as they are, anything
 * else as a `RunStoreError`, retryable unless Redis answered with an error that will not pass by itself
 * (a wrong key type, a refused command, a script error). A failure without an answer (the connection
 * closed, the client gave up retrying) is retryable.
 */
export function runStoreFailure(operation: string, runId: string | undefined, error: unknown): CoordinationError {
  if (error instanceof CoordinationError) return error;
  const replied = error instanceof Error && error.name === 'ReplyError';
  return new RunStoreError(operation, runId, error, !replied || PASSING_REPLY.test(error.message));
}
