import { ConfigError } from '@rxagents/core';
import { ChoreographyEngine, ChoreographySpec } from '@rxagents/choreography';
import { scriptedAgent } from '@rxagents/testing';
import { configErrorOf } from './configErrorOf';
import { articleSpec, silent } from './fixtures';


describe('ChoreographyEngine: agent ids', () => {
  it('refuses two different agents registered under one id, naming the id', () => {
    const researcher = scriptedAgent('researcher', 'x');
    const error = configErrorOf(() =>
      ChoreographyEngine.builder()
        .spec(articleSpec())
        .agent('researcher', researcher)
        .agent('writer', scriptedAgent('writer', 'first'))
        .agent('writer', scriptedAgent('writer', 'second'))
        .build(),
    );
    expect(error.message).toBe('ChoreographyEngine options: agents must register one agent per id (two different agents were registered under this one), got "writer"');
  });

  it('refuses a clash between agents(...) and agent(...) too, but accepts the same agent registered twice', () => {
    const writer = scriptedAgent('writer', 'x');
    const researcher = scriptedAgent('researcher', 'x');
    expect(() => ChoreographyEngine.builder().spec(articleSpec()).agents({ researcher, writer }).agent('researcher', scriptedAgent('r2', 'y')).build()).toThrow(
      'got "researcher"',
    );
    expect(() => ChoreographyEngine.builder().spec(articleSpec()).agents({ researcher, writer }).agent('writer', writer).logger(silent).build()).not.toThrow();
  });

  const registered = () => ({ researcher: scriptedAgent('r', 'x'), writer: scriptedAgent('w', 'x') });
  it.each([
    ['a whitespace-only record key', () => ({ ...registered(), ' ': scriptedAgent('x', 'x') }), 'agents. '],
    ['an empty Map key', () => new Map([...Object.entries(registered()), ['', scriptedAgent('x', 'x')]]), 'agents.'],
    ['a non-string Map key', () => new Map<unknown, unknown>([...Object.entries(registered()), [42, scriptedAgent('x', 'x')]]), 'agents.42'],
  ])('refuses %s', (_, agents, path) => {
    const error = configErrorOf(() => new ChoreographyEngine({ spec: articleSpec(), agents: agents() as never }));
    expect(error.issues.map((issue) => issue.path)).toEqual([path]);
    expect(error.message).toContain(`${path} must be a non-blank string`);
  });

  it.each([null, undefined, 42])('the builder refuses %p as agents with a ConfigError naming agents', (bad) => {
    expect(configErrorOf(() => ChoreographyEngine.builder().agents(bad as never)).message).toMatch(/^ChoreographyEngine builder: agents must be a Map or a record/);
  });
});

describe('ChoreographyEngine: execute options', () => {
  it('rejects an unknown option of execute() with a ConfigError naming it, and the engine can still run', async () => {
    const engine = ChoreographyEngine.builder().spec(articleSpec()).agents({ researcher: scriptedAgent('r', 'x'), writer: scriptedAgent('w', 'y') }).logger(silent).build();
    const controller = new AbortController();
    await expect(engine.execute({ signl: controller.signal } as never)).rejects.toThrow(
      'ChoreographyEngine.execute options: signl is not a known option (did you mean signal?)',
    );
    await expect(engine.execute({ signal: 'stop' } as never)).rejects.toBeInstanceOf(ConfigError);
    await expect(engine.execute()).resolves.toEqual(expect.objectContaining({ success: true, completedCount: 2 }));
  });
});

describe('ChoreographySpec: blank names', () => {
  const base = { id: 'a', source: 's', target: 't', trigger: 'go', emits: null, task: 'Do' };
  it.each([
    ['the spec name', { name: '  ', initialEvents: ['go'], interactions: [base] }, 'name'],
    ['an initial event', { name: 'x', initialEvents: [' \t'], interactions: [base] }, 'initialEvents.0'],
    ['an interaction id', { name: 'x', initialEvents: ['go'], interactions: [{ ...base, id: ' ' }] }, 'interactions.0.id'],
    ['a source', { name: 'x', initialEvents: ['go'], interactions: [{ ...base, source: ' ' }] }, 'interactions.0.source'],
    ['a target', { name: 'x', initialEvents: ['go'], interactions: [{ ...base, target: '\n' }] }, 'interactions.0.target'],
    ['a trigger', { name: 'x', initialEvents: ['go'], interactions: [{ ...base, trigger: ' ' }] }, 'interactions.0.trigger'],
    ['an emitted event', { name: 'x', initialEvents: ['go'], interactions: [{ ...base, emits: '  ' }] }, 'interactions.0.emits'],
  ])('refuses a whitespace-only %s', (_, json, path) => {
    const error = configErrorOf(() => ChoreographySpec.parse(json));
    expect(error.issues.map((issue) => issue.path)).toContain(path);
    expect(error.message).toContain('must be a non-blank string');
  });
});
