import { ConfigError } from '@rxagents/core';
import { runTextPartMetadata } from '@rxagents/web';
import { runTextPartMetadata as fromClient } from '@rxagents/web/client';

describe('runTextPartMetadata', () => {
  it('reads a text part\'s metadata checked, and nothing from a part that is not a run\'s', () => {
    const metadata = { callId: 'c1', agentId: 'billing', parentCallId: null, status: 'done', durationMs: 4 };
    expect(runTextPartMetadata({ type: 'text', providerMetadata: { rxagents: metadata } })).toEqual(metadata);
    expect(runTextPartMetadata({ type: 'text', providerMetadata: { rxagents: { ...metadata, relay: true } } })?.relay).toBe(true);
    expect(runTextPartMetadata({ type: 'text' })).toBeUndefined();
    expect(runTextPartMetadata({ type: 'reasoning', providerMetadata: { rxagents: metadata } })).toBeUndefined();
    for (const bad of [{ ...metadata, status: 'odd' }, { ...metadata, agentId: 3 }, { ...metadata, parentCallId: undefined }, { ...metadata, durationMs: -1 }, { ...metadata, relay: 'yes' }, [metadata], null])
      expect(runTextPartMetadata({ type: 'text', providerMetadata: { rxagents: bad } })).toBeUndefined();
  });

  it('is in the browser entry too', () => {
    expect(fromClient).toBe(runTextPartMetadata);
  });

  it.each([null, undefined, 42])('refuses %p with a ConfigError naming the part, from both entries', (bad) => {
    expect(() => runTextPartMetadata(bad as never)).toThrow(ConfigError);
    expect(() => runTextPartMetadata(bad as never)).toThrow(/^runTextPartMetadata: part must be a message part/);
    expect(() => fromClient(bad as never)).toThrow(/^runTextPartMetadata: part must be a message part/);
  });
});
