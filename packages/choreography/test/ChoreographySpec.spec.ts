import { ConfigError } from '@rxagents/core';
import { ChoreographySpec, ChoreographySpecSchema, triggersOf } from '@rxagents/choreography';
import fc from 'fast-check';
import { z } from 'zod';
import { configErrorOf } from './configErrorOf';

const article = () =>
  ChoreographySpec.builder('article')
    .initialEvent('start')
    .interaction('research', 'system', 'researcher', 'start', 'researched', 'Collect sources on agent coordination')
    .interaction('draft', 'researcher', 'writer', 'researched', 'drafted', 'Write a draft from the research')
    .interaction('review', 'writer', 'reviewer', 'drafted', null, 'Review the draft');

describe('ChoreographySpec builder', () => {
  it('builds the article example spec, emits may be null', () => {
    const spec = article().build();
    expect(spec.name).toBe('article');
    expect(spec.initialEvents).toEqual(['start']);
    expect(spec.interactions.map((i) => [i.id, i.source, i.target, i.trigger, i.emits, i.task])).toEqual([
      ['research', 'system', 'researcher', 'start', 'researched', 'Collect sources on agent coordination'],
      ['draft', 'researcher', 'writer', 'researched', 'drafted', 'Write a draft from the research'],
      ['review', 'writer', 'reviewer', 'drafted', null, 'Review the draft'],
    ]);
    expect(spec.interaction('draft')?.target).toBe('writer');
    expect(spec.interaction('missing')).toBeUndefined();
  });

  it('needs at least one interaction', () => {
    const error = configErrorOf(() => ChoreographySpec.builder('empty').initialEvent('start').build());
    expect(error.path).toBe('interactions');
    expect(error.message).toContain('interactions must list at least one interaction');
  });

  it('needs at least one initial event', () => {
    const error = configErrorOf(() => ChoreographySpec.builder('x').interaction('a', 's', 't', 'go', null, 'Do').build());
    expect(error.path).toBe('initialEvents');
    expect(error.message).toContain('initialEvents must list at least one initial event');
  });

  it.each([
    ['id', ['', 's', 't', 'go', null, 'Do']],
    ['source', ['a', '', 't', 'go', null, 'Do']],
    ['target', ['a', 's', undefined, 'go', null, 'Do']],
    ['trigger', ['a', 's', 't', '', null, 'Do']],
    ['task', ['a', 's', 't', 'go', null, '']],
  ] as const)('checks the required field %s', (field, args) => {
    const builder = ChoreographySpec.builder('x').initialEvent('go') as unknown as { interaction: (...a: unknown[]) => { build: () => unknown } };
    const error = configErrorOf(() => builder.interaction(...args).build());
    expect(error.issues.map((issue) => issue.path)).toEqual([`interactions.0.${field}`]);
  });

  it('rejects duplicate interaction ids, naming both', () => {
    const error = configErrorOf(() => article().interaction('draft', 'reviewer', 'writer', 'reviewed', null, 'Revise').build());
    expect(error.path).toBe('interactions.3.id');
    expect(error.message).toBe('ChoreographySpec: interactions.3.id must be unique (interactions.1.id is also "draft"), got "draft"');
  });

  it('lists every problem at once', () => {
    const error = configErrorOf(() => ChoreographySpec.builder('').build());
    expect(error.issues.map((issue) => issue.path).sort()).toEqual(['initialEvents', 'interactions', 'name']);
  });

  it('is immutable', () => {
    const spec = article().build();
    expect(Object.isFrozen(spec)).toBe(true);
    expect(Object.isFrozen(spec.interactions)).toBe(true);
    expect(Object.isFrozen(spec.interactions[0])).toBe(true);
  });
});

describe('ChoreographySpec object form and AND-join', () => {
  it('accepts a list of triggers and an optional timeout', () => {
    const spec = ChoreographySpec.builder('launch')
      .initialEvent('start')
      .interaction({ id: 'ship', source: 'pm', target: 'dev', trigger: ['designed', 'written'], emits: 'shipped', task: 'Build', timeout: 5000 })
      .build();
    const ship = spec.interaction('ship')!;
    expect(triggersOf(ship)).toEqual(['designed', 'written']);
    expect(ship.timeout).toBe(5000);
  });

  it('defaults a missing emits to null', () => {
    const spec = ChoreographySpec.builder('x').initialEvent('go').interaction({ id: 'a', source: 's', target: 't', trigger: 'go', task: 'Do' }).build();
    expect(spec.interaction('a')?.emits).toBeNull();
  });

  it.each([
    [[], 'must list at least one event'],
    [['a', 'a'], 'must not list an event twice'],
    [['a', ''], 'must be a non-blank string'],
    [42, 'must be an event name or a non-empty list of event names'],
  ])('rejects the trigger %j', (trigger, rule) => {
    const error = configErrorOf(() =>
      ChoreographySpec.builder('x')
        .initialEvent('go')
        .interaction({ id: 'a', source: 's', target: 't', trigger: trigger as string[], emits: null, task: 'Do' })
        .build(),
    );
    expect(error.message).toContain(rule);
  });

  it('rejects a non-positive timeout', () => {
    const error = configErrorOf(() =>
      ChoreographySpec.builder('x').initialEvent('go').interaction({ id: 'a', source: 's', target: 't', trigger: 'go', emits: null, task: 'Do', timeout: 0 }).build(),
    );
    expect(error.path).toBe('interactions.0.timeout');
  });

  it.each([null, undefined, 42, {}])('triggersOf refuses %p with a ConfigError naming the interaction', (bad) => {
    expect(configErrorOf(() => triggersOf(bad as never)).message).toMatch(/^triggersOf: interaction must be an interaction/);
  });
});

describe('ChoreographySpec JSON', () => {
  it('round-trips through toJSON and parse', () => {
    const spec = article()
      .interaction({ id: 'publish', source: 'reviewer', target: 'editor', trigger: ['drafted', 'reviewed'], emits: null, task: 'Publish', timeout: 1000 })
      .build();
    const text = JSON.stringify(spec);
    const copy = ChoreographySpec.parse(text);
    expect(copy.toJSON()).toEqual(spec.toJSON());
    expect(ChoreographySpec.parse(JSON.parse(text)).toJSON()).toEqual(spec.toJSON());
    expect(copy.toJSON().interactions[3]).toEqual({
      id: 'publish', source: 'reviewer', target: 'editor', trigger: ['drafted', 'reviewed'], emits: null, task: 'Publish', timeout: 1000,
    });
  });

  it('round-trips any valid spec (property)', () => {
    const name = fc.string({ minLength: 1, maxLength: 8 }).filter((text) => text.trim().length > 0);
    const interaction = fc.record({
      source: name, target: name, trigger: fc.oneof(name, fc.uniqueArray(name, { minLength: 1, maxLength: 3 })), emits: fc.option(name, { nil: null }), task: name,
    });
    fc.assert(
      fc.property(name, fc.array(name, { minLength: 1, maxLength: 3 }), fc.array(interaction, { minLength: 1, maxLength: 6 }), (specName, initialEvents, interactions) => {
        const json = { name: specName, initialEvents, interactions: interactions.map((i, index) => ({ id: `i${index}`, ...i })) };
        expect(ChoreographySpec.parse(JSON.stringify(json)).toJSON()).toEqual(json);
      }),
    );
  });

  it('rejects text that is not JSON', () => {
    const error = configErrorOf(() => ChoreographySpec.parse('{ name: oops'));
    expect(error.message).toMatch(/^ChoreographySpec: value must be valid JSON/);
  });

  it('rejects unknown keys at every level', () => {
    const json = article().build().toJSON();
    const top = configErrorOf(() => ChoreographySpec.parse({ ...json, version: 2 }));
    expect(top.issues).toEqual([{ path: 'version', rule: 'is not a known option', received: 2 }]);
    const nested = configErrorOf(() => ChoreographySpec.parse({ ...json, interactions: [{ ...json.interactions[0], agent: 'x' }] }));
    expect(nested.path).toBe('interactions.0.agent');
  });

  it('rejects __proto__ and constructor keys without polluting any prototype', () => {
    const base = JSON.stringify(article().build()).slice(1, -1);
    for (const text of [
      `{"__proto__": {"polluted": true}, ${base}}`,
      `{"constructor": {"prototype": {"polluted": true}}, ${base}}`,
      `{"name": "x", "initialEvents": ["go"], "interactions": [{"id": "a", "source": "s", "target": "t", "trigger": "go", "emits": null, "task": "Do", "__proto__": {"polluted": true}}]}`,
    ]) {
      expect(() => ChoreographySpec.parse(text)).toThrow(ConfigError);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps ids such as __proto__ and constructor as plain data', () => {
    const spec = ChoreographySpec.parse({
      name: 'odd',
      initialEvents: ['__proto__'],
      interactions: [{ id: 'constructor', source: '__proto__', target: 'toString', trigger: '__proto__', emits: null, task: 'Do' }],
    });
    expect(spec.interaction('constructor')?.target).toBe('toString');
    expect(spec.interaction('toString')).toBeUndefined();
  });

  it('exports a schema that generates JSON Schema', () => {
    expect(ChoreographySpecSchema.safeParse(article().build().toJSON()).success).toBe(true);
    const schema = z.toJSONSchema(ChoreographySpecSchema, { io: 'input' }) as { required?: string[]; additionalProperties?: boolean };
    expect(schema.required).toEqual(['name', 'initialEvents', 'interactions']);
    expect(schema.additionalProperties).toBe(false);
  });
});

describe('ChoreographySpec: hostile input', () => {
  it('a JSON spec with 200,000 bad interactions gives a short message and keeps every issue on the error', () => {
    const interactions = Array.from({ length: 200_000 }, (_, i) => ({ id: `i${i}`, source: 's', target: 't', trigger: 'go', emits: null }));
    const error = configErrorOf(() => ChoreographySpec.parse(JSON.stringify({ name: 'hostile', initialEvents: ['go'], interactions })));
    expect(error.issues).toHaveLength(200_000);
    expect(error.issues[199_999]).toEqual({ path: 'interactions.199999.task', rule: 'must be a non-empty string', received: undefined });
    expect(error.message.length).toBeLessThan(2_000);
    expect(error.message).toMatch(/^ChoreographySpec: interactions\.0\.task must be a non-empty string, got undefined; .*; and 199980 more \(see issues\)$/);
  });
});
