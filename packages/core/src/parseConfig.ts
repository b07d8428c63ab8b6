import type { z } from 'zod';
import { ConfigError, type ConfigIssue } from './errors/ConfigError';

/**
 * Validates a configuration value against a zod schema and returns the parsed value.
 *
 * @remarks
 * On failure it throws a {@link ConfigError} whose message a person can act on: what was being
 * configured, the dotted path of each bad field, the rule it broke and the value received, for example
 * `StreamingChannel options: bufferSize must be a positive integer, got -1`. Write rules in schemas as
 * `must ...` messages (the helpers in {@link configRules} do) and they are used word for word; zod's
 * default messages are rephrased the same way.
 *
 * @param schema - The zod schema of the options.
 * @param value - The untrusted value.
 * @param subject - What is being configured, the message's first words.
 * @returns The parsed value, with defaults applied.
 * @throws {@link ConfigError} when the value breaks any rule.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { configRules, parseConfig } from '@rxagents/core';
 *
 * const RetryOptions = z.strictObject({ attempts: configRules.positiveInt().default(3) });
 * const options = parseConfig(RetryOptions, {}, 'Retry options');
 * console.log(options.attempts); // 3
 * ```
 */
export function parseConfig<S extends z.ZodType>(schema: S, value: unknown, subject: string): z.output<S> {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  throw new ConfigError(subject, result.error.issues.flatMap((issue) => toConfigIssues(issue, value)));
}

function toConfigIssues(issue: z.core.$ZodIssue, root: unknown): ConfigIssue[] {
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({
      path: [...path, key].join('.'),
      rule: 'is not a known option',
      received: valueAt(root, [...issue.path, key]),
    }));
  }
  const received = 'input' in issue ? issue.input : valueAt(root, issue.path);
  return [{ path: path.join('.'), rule: ruleOf(issue), received }];
}

function ruleOf(issue: z.core.$ZodIssue): string {
  if (/^(must|is|cannot|needs) /.test(issue.message)) return issue.message;
  switch (issue.code) {
    case 'invalid_type':
      return `must be ${article(issue.expected)}`;
    case 'too_small':
      return issue.origin === 'number' || issue.origin === 'bigint' || issue.origin === 'int'
        ? `must be ${issue.inclusive ? 'at least' : 'greater than'} ${String(issue.minimum)}`
        : `must have ${issue.inclusive ? 'at least' : 'more than'} ${String(issue.minimum)} ${unit(issue.origin, issue.minimum)}`;
    case 'too_big':
      return issue.origin === 'number' || issue.origin === 'bigint' || issue.origin === 'int'
        ? `must be ${issue.inclusive ? 'at most' : 'less than'} ${String(issue.maximum)}`
        : `must have ${issue.inclusive ? 'at most' : 'fewer than'} ${String(issue.maximum)} ${unit(issue.origin, issue.maximum)}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return `is invalid (${issue.message})`;
  }
}

function article(type: string): string {
  if (type === 'undefined' || type === 'null' || type === 'never') return type;
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function unit(origin: string, count: unknown): string {
  const one = count === 1 || count === 1n;
  if (origin === 'string') return one ? 'character' : 'characters';
  return one ? 'item' : 'items';
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}
