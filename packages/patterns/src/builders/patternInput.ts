import { parseConfig } from '@rxagents/core';
import { z } from 'zod';

const Input = z.string({ error: 'must be a string' });

/** A pattern run's input, checked where it is given (a builder's or a `ComposedAgent`'s run methods). @throws `ConfigError`. */
export function patternInput(input: string): string {
  return parseConfig(Input, input, 'Pattern input');
}
