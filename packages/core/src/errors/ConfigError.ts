import { preview } from '../preview';
import { CoordinationError } from './CoordinationError';

/**
 * One broken rule in a configuration object.
 *
 * @remarks
 * A {@link ConfigError} carries one per broken rule in {@link ConfigError.issues}, so a program can
 * point at each bad field instead of parsing the message.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { ConfigError, configRules, parseConfig, type ConfigIssue } from '@rxagents/core';
 *
 * const schema = z.strictObject({ bufferSize: configRules.positiveInt() });
 * try {
 *   parseConfig(schema, { bufferSize: -1 }, 'Buffer options');
 * } catch (error) {
 *   const issues: readonly ConfigIssue[] = error instanceof ConfigError ? error.issues : [];
 *   for (const { path, rule, received } of issues) console.log(path, rule, received); // bufferSize must be a positive integer -1
 * }
 * ```
 */
export interface ConfigIssue {
  /** Dotted path of the offending field, for example `bufferSize` or `interactions.2.id`; empty for the root. */
  readonly path: string;
  /** The rule that was broken, for example `must be a positive integer`. */
  readonly rule: string;
  /** The value that broke it (`undefined` when the field was missing). */
  readonly received: unknown;
}

/**
 * A configuration object broke one or more rules.
 *
 * @remarks
 * Thrown by builders and factories at `build()`/construction time, before any work starts. The message
 * names what was being configured, the field path and the rule, for example
 * `StreamingChannel options: bufferSize must be a positive integer, got -1`. The message lists the
 * first 20 issues and says how many more there are, so hostile input cannot make it huge; every issue
 * is available, structured, in {@link ConfigError.issues}. Never retryable: the same input fails again.
 *
 * @example
 * ```ts
 * import { ConfigError } from '@rxagents/core';
 *
 * const error = new ConfigError('Retry options', [{ path: 'attempts', rule: 'must be at least 1', received: 0 }]);
 * console.log(error.message); // Retry options: attempts must be at least 1, got 0
 * ```
 *
 * @see {@link parseConfig}
 */
export class ConfigError extends CoordinationError {
  /** What was being configured, for example `StreamingChannel options`. */
  readonly subject: string;
  /** Every broken rule. */
  readonly issues: readonly ConfigIssue[];

  constructor(subject: string, issues: readonly ConfigIssue[]) {
    super('CONFIG_INVALID', `${subject}: ${formatIssues(issues)}`, {
      retryable: false,
      context: { subject, issues },
    });
    this.subject = subject;
    this.issues = Object.freeze([...issues]);
  }

  /** The first issue's path, the field most users need to fix first. */
  get path(): string {
    return this.issues[0]?.path ?? '';
  }
}

/** How many issues the message lists; all of them stay in {@link ConfigError.issues}. */
const LISTED_ISSUES = 20;

function formatIssues(issues: readonly ConfigIssue[]): string {
  const listed = issues.slice(0, LISTED_ISSUES).map(formatIssue).join('; ');
  const more = issues.length - LISTED_ISSUES;
  return more > 0 ? `${listed}; and ${more} more (see issues)` : listed;
}

function formatIssue(issue: ConfigIssue): string {
  const field = issue.path === '' ? 'value' : issue.path;
  return `${field} ${issue.rule}, got ${preview(issue.received)}`;
}
