import { ConfigError } from '@rxagents/core';
import { handoffFilters, type HandoffConditionContext } from '@rxagents/handoff';

const context = (input: string, extra: Partial<HandoffConditionContext> = {}): HandoffConditionContext => ({ input, messages: [], metadata: {}, ...extra });

describe('handoffFilters', () => {
  it('topic matches any listed word in the input, ignoring case', () => {
    const billing = handoffFilters.topic(['invoice', 'payment', 'refund']);
    expect(billing(context('I have a question about my invoice'))).toBe(true);
    expect(billing(context('REFUND please'))).toBe(true);
    expect(billing(context('My router is broken'))).toBe(false);
    expect(billing(context('prefunding'))).toBe(false);
  });

  it('topic refuses an empty or blank word, which would match every input, and words that are not an array', () => {
    expect(() => handoffFilters.topic(['invoice', ''])).toThrow(ConfigError);
    expect(() => handoffFilters.topic([' '])).toThrow('handoffFilters.topic: topics.0 must be a non-blank string, got " "');
    expect(() => handoffFilters.topic('invoice' as never)).toThrow('handoffFilters.topic: topics must be an array of words, got "invoice"');
  });

  it('topic also looks at the last user message', () => {
    const billing = handoffFilters.topic(['invoice']);
    expect(billing(context('and now?', { messages: [{ role: 'user', content: 'about my invoice' }, { role: 'assistant', content: 'yes?' }] }))).toBe(true);
  });

  it('metadata matches an exact value', () => {
    expect(handoffFilters.metadata('tier', 'vip')(context('x', { metadata: { tier: 'vip' } }))).toBe(true);
    expect(handoffFilters.metadata('tier', 'vip')(context('x', { metadata: { tier: 'free' } }))).toBe(false);
  });

  it('metadata reads only the call\'s own keys, never inherited ones', () => {
    expect(handoffFilters.metadata('toString', undefined)({ input: '', messages: [], metadata: {} })).toBe(true);
    expect(handoffFilters.metadata('constructor', Object)({ input: '', messages: [], metadata: {} })).toBe(false);
    expect(handoffFilters.metadata('__proto__', 'x')({ input: '', messages: [], metadata: JSON.parse('{"__proto__":"x"}') })).toBe(true);
  });

  it('always, never, and, or', () => {
    const { always, never, and, or } = handoffFilters;
    expect(always()(context('x'))).toBe(true);
    expect(never()(context('x'))).toBe(false);
    expect(and(always(), never())(context('x'))).toBe(false);
    expect(and(always(), always())(context('x'))).toBe(true);
    expect(or(never(), always())(context('x'))).toBe(true);
    expect(or(never(), never())(context('x'))).toBe(false);
  });
});
