/** The replies of an ioredis pipeline (`exec()`), as `[error, value]` pairs. */
type PipelineReplies = Array<[Error | null, unknown]> | null;

/** The reply of a pipeline's `index`th command; throws the command's error. */
function replyOf(replies: PipelineReplies, index: number): unknown {
  const [error, value] = replies?.[index] ?? [new Error('the pipeline was discarded'), undefined];
  if (error !== null) throw error;
  return value;
}

export function resultOf(replies: PipelineReplies, index: number): number {
  return Number(replyOf(replies, index));
}

export function listOf(replies: PipelineReplies, index: number): string[] {
  const value = replyOf(replies, index);
  return Array.isArray(value) ? value.map(String) : [];
}
