import { StreamingChannel } from '@rxagents/streaming';
import { Patterns, type PostedMessage, PostedMessageSchema } from '@rxagents/patterns';
import { scriptedAgent } from '@rxagents/testing';

describe('PostedMessageSchema', () => {
  it('accepts a plain message and a run\'s reply as posted', async () => {
    const posted: unknown[] = [];
    await Patterns.sequence({ agents: [scriptedAgent('draft', 'a draft'), scriptedAgent('edit', 'edited')] })
      .overChannel({ onChannel: (channel) => channel.subscribe((message) => void posted.push(message)) })
      .execute('otters');
    expect(posted.map((message) => PostedMessageSchema.safeParse(message).success)).toEqual([true, true]);
    // Each call has its own id.
    const ids = posted.map((message) => (message as { replyTo: string }).replyTo);
    expect(new Set(ids).size).toBe(2);
    expect(PostedMessageSchema.safeParse({ speaker: 'moderator', content: 'Wrap up.', at: 0 }).success).toBe(true);
  });

  it.each([
    [{ speaker: 'draft', content: 'x', at: 0, replyTo: 42 }, 'replyTo'],
    [{ speaker: 'draft', content: 'x', at: 0, replyTo: 'not-a-uuid' }, 'replyTo'],
    [{ speaker: ' ', content: 'x', at: 0 }, 'speaker'],
    [{ speaker: 'draft', content: 'x', at: Number.NaN }, 'at'],
    [{ speaker: 'draft', content: 'x', at: 0, replyto: 'x' }, ''],
  ])('refuses %j, naming the field', (message, field) => {
    const check = PostedMessageSchema.safeParse(message);
    expect(check.success).toBe(false);
    expect(check.error?.issues[0]?.path.join('.') ?? '').toBe(field);
  });

  it('as a channel\'s item schema, refuses a malformed message where it is posted', () => {
    const channel = StreamingChannel.create<PostedMessage>({ schema: PostedMessageSchema });
    expect(() => channel.emit({ speaker: 'draft', content: 'x', at: 0, replyTo: 7 } as unknown as PostedMessage)).toThrow(/replyTo/);
  });
});
