import { createHash } from 'node:crypto';

/**
 * The call id of a remote call made with an idempotency key: the SHA-256 of the agent id and the key, in
 * the form of a UUID (version 8, the form for ids of one's own making), so that the workers' call schema
 * takes it as any other call id. Every attempt of one call (the same key) gets the same id, and so the same
 * Redis keys; the id is as hard to guess as the key (a durable run's key holds its random run id).
 */
export function keyedCallId(agentId: string, idempotencyKey: string): string {
  const hex = createHash('sha256').update(JSON.stringify([agentId, idempotencyKey])).digest('hex');
  const variant = ((Number.parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
