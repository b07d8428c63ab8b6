import { ConfigError } from '@rxagents/core';

/** Runs `build` and returns the ConfigError it throws; any other outcome fails the test. */
export function configErrorOf(build: () => unknown): ConfigError {
  try {
    build();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}
