import { ConfigError, configRules, parseConfig, type ConfigIssue } from '@rxagents/core';
import type { z } from 'zod';

/**
 * @internal The issues `value` has against `schema`, their paths under `path`.
 *
 * Lets one `ConfigError` list every bad field of a call made of several parts (an id, a script of rules
 * whose answers have different shapes, options) while each part keeps `parseConfig`'s wording and its
 * did-you-mean for unknown keys.
 */
export function issuesAt(schema: z.ZodType, value: unknown, path: string): ConfigIssue[] {
  try {
    parseConfig(schema, value, '');
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.issues.map((issue) => ({ ...issue, path: issue.path === '' ? path : path === '' ? issue.path : `${path}.${issue.path}` }));
  }
}

/** @internal Throws one `ConfigError` about `subject` when there is any issue. */
export function throwIfAny(subject: string, issues: readonly ConfigIssue[]): void {
  if (issues.length > 0) throw new ConfigError(subject, issues);
}

const IdSchema = configRules.id();

/** @internal The issues of an agent id (a string that is not blank), under `id`. */
export function idIssues(id: unknown): ConfigIssue[] {
  return typeof id === 'string' && id.trim() !== '' ? [] : issuesAt(IdSchema, id, 'id');
}
