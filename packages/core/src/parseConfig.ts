import type * as z from 'zod';
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
  if (typeof (schema as Partial<z.ZodType> | null)?.safeParse !== 'function' || typeof subject !== 'string') refuseArguments(schema, subject);
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  throw new ConfigError(subject, result.error.issues.flatMap((issue) => toConfigIssues(issue, value, schema)));
}

function toConfigIssues(issue: z.core.$ZodIssue, root: unknown, schema: z.ZodType): ConfigIssue[] {
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeysAt(schema, issue.path);
    return issue.keys.map((key) => {
      const likely = closestKey(key, known);
      return {
        path: [...path, key].join('.'),
        rule: likely === undefined ? 'is not a known option' : `is not a known option (did you mean ${likely}?)`,
        received: valueAt(root, [...issue.path, key]),
      };
    });
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

/** The keys an object schema at `path` accepts, looking through optional, default and pipe wrappers. */
function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): readonly string[] {
  let current: z.core.$ZodType | undefined = unwrap(schema);
  for (const key of path) {
    if (current === undefined) return [];
    const def = current._zod.def as { type: string; shape?: Record<string, z.core.$ZodType>; element?: z.core.$ZodType };
    if (def.type === 'object' && def.shape !== undefined && typeof key === 'string' && Object.hasOwn(def.shape, key)) current = unwrap(def.shape[key]);
    else if (def.type === 'array' && typeof key === 'number') current = unwrap(def.element);
    else return [];
  }
  const def = current?._zod.def as { type?: string; shape?: Record<string, unknown> } | undefined;
  return def?.type === 'object' && def.shape !== undefined ? Object.keys(def.shape) : [];
}

function unwrap(schema: z.core.$ZodType | undefined): z.core.$ZodType | undefined {
  let current = schema;
  for (let depth = 0; current !== undefined && depth < 16; depth++) {
    const def = current._zod.def as { type: string; innerType?: z.core.$ZodType; in?: z.core.$ZodType };
    if (def.innerType !== undefined) current = def.innerType;
    else if (def.type === 'pipe' && def.in !== undefined) current = def.in;
    else return current;
  }
  return current;
}

/** The known key within two edits of `key` (insert, delete, substitute or swap two neighbours), if one is closest. */
function closestKey(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const distance = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function refuseArguments(schema: unknown, subject: unknown): never {
  const issues: ConfigIssue[] = [];
  if (typeof (schema as Partial<z.ZodType> | null)?.safeParse !== 'function') issues.push({ path: 'schema', rule: 'must be a zod schema', received: schema });
  if (typeof subject !== 'string') issues.push({ path: 'subject', rule: 'must be a string', received: subject });
  throw new ConfigError('parseConfig', issues);
}
