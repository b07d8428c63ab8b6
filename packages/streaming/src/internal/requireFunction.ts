import { ConfigError } from '@rxagents/core';

/** A callback argument must be a function, or the call is a {@link ConfigError} naming it. @internal */
export function requireFunction<F>(value: F, method: string, name: string): F {
  if (typeof value !== 'function') throw new ConfigError(`StreamingChannel.${method}`, [{ path: name, rule: 'must be a function', received: value }]);
  return value;
}
