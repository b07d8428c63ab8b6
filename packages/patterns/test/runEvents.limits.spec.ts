import { lastValueFrom, toArray } from 'rxjs';
import { defineAgent, MAX_TEXT_FIELD_LENGTH, RunEventSchema, type RunEvent } from '@rxagents/core';
import { Patterns } from '@rxagents/patterns';

describe('a pattern run with a reply too long to repeat', () => {
  it('says a long message without repeating its content: the text is in the speaker\'s deltas', async () => {
    const long = '"'.repeat(MAX_TEXT_FIELD_LENGTH / 2 + 1);
    const pro = defineAgent('pro', async () => long);
    const con = defineAgent('con', async () => 'no');
    const events: RunEvent[] = await lastValueFrom(Patterns.debate({ agents: [pro, con], maxRounds: 1 }).events$('Ship?').pipe(toArray()));
    const messages = events.filter((event) => event.type === 'message');

    expect(messages).toEqual([
      expect.objectContaining({ speaker: 'pro', content: '', contentOmitted: true }),
      expect.objectContaining({ speaker: 'con', content: 'no' }),
    ]);
    for (const message of messages) expect(RunEventSchema.safeParse(message).success).toBe(true);
    const said = events.flatMap((event) => (event.type === 'text-delta' && event.agentId === 'pro' ? [event.delta] : [])).join('');
    expect(said).toBe(long);
    expect(Math.max(...events.map((event) => JSON.stringify(event).length))).toBeLessThan(2 * MAX_TEXT_FIELD_LENGTH);
  });
});
