import { z } from 'zod';
import { asyncScheduler } from 'rxjs';
import { ConfigError, configRules, CoordinationError, defineAgent, parseConfig } from '@rxagents/core';

const Options = z.strictObject({
  bufferSize: configRules.positiveInt().default(256),
  strategy: z.enum(['BLOCK', 'DROP_OLDEST']).default('DROP_OLDEST'),
  scheduler: configRules.scheduler().optional(),
  nested: z.strictObject({ limit: z.number().min(1) }).optional(),
});

describe('parseConfig', () => {
  it('returns the parsed value with defaults', () => {
    expect(parseConfig(Options, { scheduler: asyncScheduler }, 'StreamingChannel options')).toEqual({
      bufferSize: 256,
      strategy: 'DROP_OLDEST',
      scheduler: asyncScheduler,
    });
  });

  it('names the subject, the field path, the rule and the value', () => {
    const error = (() => {
      try {
        parseConfig(Options, { bufferSize: -1 }, 'StreamingChannel options');
      } catch (e) {
        return e;
      }
    })() as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toBeInstanceOf(CoordinationError);
    expect(error.message).toBe('StreamingChannel options: bufferSize must be a positive integer, got -1');
    expect(error.path).toBe('bufferSize');
    expect(error.issues).toEqual([{ path: 'bufferSize', rule: 'must be a positive integer', received: -1 }]);
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.retryable).toBe(false);
  });

  it('rephrases zod default messages and reports nested paths', () => {
    expect(() => parseConfig(Options, { nested: { limit: 0 } }, 'X')).toThrow('X: nested.limit must be at least 1, got 0');
    expect(() => parseConfig(Options, { strategy: 'LOUD' }, 'X')).toThrow('X: strategy must be one of "BLOCK", "DROP_OLDEST", got "LOUD"');
    expect(() => parseConfig(Options, { bufferSize: '5' }, 'X')).toThrow('X: bufferSize must be a positive integer, got "5"');
  });

  it('shows NaN and Infinity as they are, not as null', () => {
    expect(() => parseConfig(Options, { bufferSize: Number('lots') }, 'X')).toThrow('X: bufferSize must be a positive integer, got NaN');
    expect(() => parseConfig(Options, { bufferSize: Infinity }, 'X')).toThrow('X: bufferSize must be a positive integer, got Infinity');
  });

  it('names unknown keys', () => {
    expect(() => parseConfig(Options, { bufferSzie: 5 }, 'X')).toThrow('X: bufferSzie is not a known option (did you mean bufferSize?), got 5');
  });

  it('lists every broken rule', () => {
    const attempt = () => parseConfig(Options, { bufferSize: 0, scheduler: {} }, 'X');
    expect(attempt).toThrow(/bufferSize must be a positive integer, got 0; scheduler must be an RxJS scheduler/);
  });

  it.each([null, undefined, 42, {}])('refuses %p as the schema with a ConfigError naming schema', (bad) => {
    expect(() => parseConfig(bad as never, {}, 'Options')).toThrow(ConfigError);
    expect(() => parseConfig(bad as never, {}, 'Options')).toThrow(/^parseConfig: schema must be a zod schema/);
    expect(() => parseConfig(z.object({}), {}, bad as never)).toThrow(/^parseConfig: subject must be a string/);
  });
});

describe('defineAgent', () => {
  it('builds a frozen agent with its details', () => {
    const agent = defineAgent({ id: 'a', name: 'A', role: 'R', goal: 'G', chat: async () => 'x' });
    expect(agent).toMatchObject({ id: 'a', name: 'A', role: 'R', goal: 'G' });
    expect(Object.isFrozen(agent)).toBe(true);
  });

  it('rejects an empty id', () => {
    expect(() => defineAgent('', async () => 'x')).toThrow('Agent definition: id must be a non-blank string, got ""');
  });

  it('rejects a missing chat function', () => {
    expect(() => defineAgent({ id: 'a' } as never)).toThrow('Agent definition: chat must be a function, got undefined');
  });
});

describe('parseConfig wording', () => {
  it('says "item" for one and "items" for more', () => {
    const List = z.strictObject({ agents: z.array(z.string()).min(1), pair: z.array(z.string()).min(2) });
    expect(() => parseConfig(List, { agents: [], pair: ['a', 'b'] }, 'X')).toThrow('X: agents must have at least 1 item, got []');
    expect(() => parseConfig(List, { agents: ['a'], pair: ['a'] }, 'X')).toThrow('X: pair must have at least 2 items, got ["a"]');
  });
});
