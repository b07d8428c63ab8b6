import { ConfigError, configRules } from '@rxagents/core';

/** An id that becomes the hash tag (`{id}`) of Redis keys: a brace in it would end the tag early or start another. */
const HashTagIdSchema = configRules.id().refine((id) => !/[{}]/.test(id), 'must not contain { or } (it becomes the hash tag of Redis keys)');

/** `value` as an id for a hash tag; a `ConfigError` of `subject` naming `field` otherwise. */
export function hashTagId(value: unknown, subject: string, field: string): string {
  const parsed = HashTagIdSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ConfigError(subject, [{ path: field, rule: parsed.error.issues[0]?.message ?? 'must be an id', received: value }]);
}
