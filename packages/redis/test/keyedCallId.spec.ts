import { CallEntrySchema } from '../src/internal/protocol';
import { keyedCallId } from '../src/internal/keyedCallId';

describe('keyedCallId', () => {
  it('gives every attempt of one call the same id, another agent or key another one, each a call id the workers accept', () => {
    const id = keyedCallId('writer', 'run-1:run/0');
    expect(keyedCallId('writer', 'run-1:run/0')).toBe(id);
    const others = [keyedCallId('writer', 'run-1:run/1'), keyedCallId('editor', 'run-1:run/0'), keyedCallId('writer', 'run-2:run/0')];
    expect(new Set([id, ...others]).size).toBe(4);
    for (const callId of [id, ...others]) {
      expect(CallEntrySchema.safeParse({ v: 1, callId, agentId: 'writer', input: 'x', maxAttempts: 3 }).success).toBe(true);
    }
  });
});
