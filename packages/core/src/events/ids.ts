/**
 * A new unguessable id for a run or a call: a random UUID (122 random bits from the platform's
 * cryptographic generator), so an id that a browser may use to watch or answer a call cannot be guessed.
 *
 * @returns A string such as `0f8c1c3e-3b1f-4a5e-9a55-2b8f0b8f6d11`.
 *
 * @example
 * ```ts
 * import { newRunId } from '@rxagents/core';
 *
 * console.log(newRunId().length); // 36
 * ```
 */
export function newRunId(): string {
  return globalThis.crypto.randomUUID();
}
