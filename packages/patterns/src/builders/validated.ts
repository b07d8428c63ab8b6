import { parseConfig } from '@rxagents/core';
import type { z } from 'zod';

/** The brand of settings the package validated already (instances carry the settings' own fields). */
class Validated {}

/**
 * Marks settings as validated, so that {@link parseOnce} hands them back as they are. Only code of this
 * package can mark settings (nothing here is exported from the package): a user's options are always
 * parsed, once, where the user gives them.
 */
export function validated<S extends object>(settings: S): S {
  return Object.freeze(Object.assign(Object.create(Validated.prototype) as object, settings)) as S;
}

/**
 * Parses a user's options with `schema` (throws `ConfigError`), then `complete`s them; settings marked
 * {@link validated} (a builder handing its own settings to a copy, `.overChannel()`) come back unparsed.
 */
export function parseOnce<Schema extends z.ZodType, S extends object>(
  schema: Schema,
  options: unknown,
  label: string,
  complete: (parsed: z.output<Schema>) => S,
): S {
  if (options instanceof Validated) return options as S;
  return validated(complete(parseConfig(schema, options, label)));
}
