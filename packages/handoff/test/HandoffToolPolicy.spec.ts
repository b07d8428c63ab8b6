import { defineAgent, type Agent } from '@rxagents/core';
import { recordingAgent } from '@rxagents/testing';
import { DEFAULT_HANDOFF_TOOL_POLICY, handoff, resolveHandoffToolPolicy } from '@rxagents/handoff';

describe('tool policy', () => {
  it('a policy is strict: a misspelt blockedTools is a ConfigError, not tools left unblocked', () => {
    expect(() => resolveHandoffToolPolicy(['shell'], undefined, { mode: 'passthrough', blockTools: ['shell'] } as never)).toThrow(
      'tool policy: blockTools is not a known option (did you mean blockedTools?)',
    );
  });

  it('DEFAULT_HANDOFF_TOOL_POLICY intersects and blocks nothing', () => {
    expect(DEFAULT_HANDOFF_TOOL_POLICY).toEqual({ mode: 'intersect', blockedTools: [] });
  });

  it('intersect keeps only the target tools the source also has', () => {
    expect(resolveHandoffToolPolicy(['search', 'refund', 'email'], ['search', 'refund', 'shell'])).toEqual(['search', 'refund']);
  });

  it('intersect with unknown source tools keeps the target tools', () => {
    expect(resolveHandoffToolPolicy(['search'], undefined)).toEqual(['search']);
  });

  it('passthrough keeps the target tools', () => {
    expect(resolveHandoffToolPolicy(['search', 'email'], ['search'], { mode: 'passthrough' })).toEqual(['search', 'email']);
  });

  it('blockedTools are always removed', () => {
    expect(resolveHandoffToolPolicy(['search', 'refund'], ['search', 'refund'], { mode: 'intersect', blockedTools: ['refund'] })).toEqual(['search']);
    expect(resolveHandoffToolPolicy(['search', 'refund'], undefined, { mode: 'passthrough', blockedTools: ['refund'] })).toEqual(['search']);
  });

  it('a handoff passes the allowed tools to the target in ChatOptions.metadata.allowedTools', async () => {
    const inner = recordingAgent('billing');
    const target = Object.assign(Object.create(inner) as Agent, { tools: ['refund', { name: 'search' }, { type: 'function', function: { name: 'shell' } }] });
    const source = Object.assign(defineAgent('triage', async () => ''), {}) as Agent & { tools?: string[] };
    const triage = { ...source, tools: ['search', 'shell'] };
    await handoff({ agent: target, toolPolicy: { mode: 'intersect', blockedTools: ['shell'] } }).execute(triage, { input: 'x' });
    expect(inner.calls[0]?.options.metadata?.allowedTools).toEqual(['search']);
    await handoff({ agent: target, toolPolicy: { mode: 'passthrough' } }).execute(triage, { input: 'x' });
    expect(inner.calls[1]?.options.metadata?.allowedTools).toEqual(['refund', 'search', 'shell']);
  });

  it('no allowedTools when neither agent declares tools', async () => {
    const target = recordingAgent('billing');
    await handoff({ agent: target }).execute({ id: 's' }, { input: 'x' });
    expect(target.calls[0]?.options.metadata).not.toHaveProperty('allowedTools');
  });
});

describe('tools of every shape', () => {
  it('a named function is a tool by its name, as PraisonAI reads a callable', async () => {
    const inner = recordingAgent('billing');
    const target = Object.assign(Object.create(inner) as Agent, { tools: [function lookup() {}, 'refund'] });
    await handoff({ agent: target }).execute({ id: 'triage' }, { input: 'x' });
    expect(inner.calls[0]?.options.metadata?.allowedTools).toEqual(['lookup', 'refund']);
  });

  it("a record of tools (the AI SDK's ToolSet) names its keys", async () => {
    const inner = recordingAgent('billing');
    const toolSet = Object.assign(Object.create(null) as Record<string, unknown>, { search: {}, shell: {} });
    const target = Object.assign(Object.create(inner) as Agent, { tools: toolSet });
    const source = { id: 'triage', tools: [function search() {}] };
    await handoff({ agent: target }).execute(source, { input: 'x' });
    expect(inner.calls[0]?.options.metadata?.allowedTools).toEqual(['search']);
  });

  it("a target tool without a name is a ConfigError naming its index, when the handoff is built", () => {
    const target = Object.assign(Object.create(recordingAgent('billing')) as Agent, { tools: ['refund', () => undefined] });
    expect(() => handoff({ agent: target })).toThrow('Handoff config: agent.tools.1 must be a tool name');
  });

  it('a source tool without a name rejects with a ConfigError naming its index, before the target runs', async () => {
    const target = recordingAgent('billing');
    await expect(handoff({ agent: target }).execute({ id: 'triage', tools: ['search', 42] } as never, { input: 'x' })).rejects.toThrow('Handoff source: tools.1 must be a tool name');
    expect(target.calls).toHaveLength(0);
  });
});

describe('the default mode', () => {
  it('blockedTools without a mode intersects, as PraisonAI', async () => {
    const inner = recordingAgent('billing');
    const target = Object.assign(Object.create(inner) as Agent, { tools: ['search', 'shell', 'email'] });
    const h = handoff({ agent: target, toolPolicy: { blockedTools: ['shell'] } });
    expect(h.config.toolPolicy).toEqual({ mode: 'intersect', blockedTools: ['shell'] });
    await h.execute({ id: 'triage', tools: ['search', 'shell'] } as never, { input: 'x' });
    expect(inner.calls[0]?.options.metadata?.allowedTools).toEqual(['search']);
    expect(resolveHandoffToolPolicy(['search', 'email'], ['search'], { blockedTools: [] })).toEqual(['search']);
  });

  it('the resolved config shows the default policy when none is given', () => {
    expect(handoff({ agent: recordingAgent('billing') }).config.toolPolicy).toEqual(DEFAULT_HANDOFF_TOOL_POLICY);
  });
});
