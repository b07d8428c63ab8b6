import { ConfigError, defineAgent } from '@rxagents/core';
import { handoff, handoffFilters, normalizeHandoffs, routingAgent } from '@rxagents/handoff';

const billing = defineAgent({ id: 'billing', name: 'Billing', chat: async () => 'paid' });
const support = defineAgent({ id: 'support', name: 'Support', chat: async () => 'fixed' });

describe('normalizeHandoffs (configuration levels)', () => {
  it('level 1, an agent list, becomes default handoffs', () => {
    const [a, b] = normalizeHandoffs([billing, support]);
    expect([a?.toolName, b?.toolName]).toEqual(['transfer_to_billing', 'transfer_to_support']);
    expect(a?.config.contextPolicy).toBe('summary');
  });

  it('level 2, { agent, description }, keeps the description', () => {
    const [h] = normalizeHandoffs([{ agent: billing, description: 'For billing questions' }]);
    expect(h?.toolDescription).toBe('For billing questions');
  });

  it('level 3, a handoff() instance, is kept as it is', () => {
    const instance = handoff({ agent: billing, description: 'For billing', condition: handoffFilters.topic(['invoice', 'payment', 'refund']) });
    expect(normalizeHandoffs([instance])[0]).toBe(instance);
  });

  it('refuses two different agents with the same id, even under different tool names', () => {
    const impostor = defineAgent({ id: 'billing', name: 'Billing Two', chat: async () => 'other' });
    expect(() => normalizeHandoffs([billing, impostor])).toThrow(ConfigError);
    expect(() => normalizeHandoffs([billing, impostor])).toThrow('handoffs: 1 must not reuse the id "billing" of a different agent (0), got "billing"');
    expect(() => routingAgent({ id: 'assistant', handoffs: [billing, handoff({ agent: impostor })] })).toThrow(/must not reuse the id "billing"/);
    // The same agent twice, under two tool names, is fine.
    expect(normalizeHandoffs([billing, handoff({ agent: billing, name: 'billing_refunds' })])).toHaveLength(2);
  });

  it('agents whose names have no Latin letters get distinct tools in one list; two agents mapping to one tool name are a ConfigError naming both', () => {
    const agents = ['支払い', 'Оплата', '🤖'].map((id) => defineAgent({ id, chat: async () => id }));
    const names = normalizeHandoffs(agents).map((h) => h.toolName);
    expect(new Set(names).size).toBe(3);
    expect(routingAgent({ id: 'assistant', handoffs: agents }).handoffs.map((h) => h.toolDefinition().function.name)).toEqual(names);
    const eu = defineAgent({ id: 'billing-eu', name: 'Billing', chat: async () => 'eu' });
    const us = defineAgent({ id: 'billing-us', name: 'Billing', chat: async () => 'us' });
    expect(() => normalizeHandoffs([eu, us])).toThrow(ConfigError);
    expect(() => routingAgent({ id: 'assistant', handoffs: [eu, support, us] })).toThrow(
      'handoffs: 2 must not repeat the tool name transfer_to_billing of agent "billing-eu" (0; set name on one of them), got "billing-us"',
    );
    expect(normalizeHandoffs([eu, handoff({ agent: us, name: 'transfer_to_billing_us' })]).map((h) => h.toolName)).toEqual(['transfer_to_billing', 'transfer_to_billing_us']);
  });

  it('refuses entries of no known form and repeated tool names', () => {
    expect(() => normalizeHandoffs([null as never])).toThrow(ConfigError);
    expect(() => normalizeHandoffs([billing, { agent: billing }])).toThrow('handoffs: 1 must not repeat the tool name transfer_to_billing of agent "billing" (0; set name on one of them), got "billing"');
    expect(() => normalizeHandoffs([{ agent: billing, maxDepth: 'deep' } as never])).toThrow('Handoff config: maxDepth');
  });
});
