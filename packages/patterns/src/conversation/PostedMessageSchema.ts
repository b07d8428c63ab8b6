import { configRules } from '@rxagents/core';
import { z } from 'zod';
import type { PostedMessage } from './ConversationState';

/**
 * A message a run posted in reply to one of its own calls: a {@link PostedMessage} with the call's id.
 *
 * @remarks
 * A conversation over a channel (a debate, a sequence, a supervisor, a `ConversationOrchestrator`) posts
 * each reply with a fresh, unguessable `replyTo` (a random UUID, core's `newRunId`), and takes a message
 * as the reply to its call only when it carries that id: never because of its speaker. So a message
 * someone else posts under the name of one of its agents (another run relaying its own replies onto the
 * channel, a person, a second participant with the same id) is folded into the transcript but answers
 * none of the run's calls, and a copy of a reply the run has read already answers nothing either. A
 * message without `replyTo` (one a person or a UI posts) is a plain `PostedMessage`; a channel that
 * carries the run's replies across processes must keep the field.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns, type PostedMessage, type PostedReply } from '@rxagents/patterns';
 *
 * const isReply = (message: PostedMessage): message is PostedReply => message.replyTo !== undefined;
 * const draft = defineAgent('draft', async (topic) => `A draft about ${topic}`);
 * await Patterns.sequence({ agents: [draft] })
 *   .overChannel({ onChannel: (channel) => channel.subscribe((message) => console.log(message.speaker, isReply(message))) })
 *   .execute('otters'); // draft true
 * ```
 */
export interface PostedReply extends PostedMessage {
  /** The id of the call this message answers, fresh for every call. */
  readonly replyTo: string;
}

/**
 * The zod schema of a {@link PostedMessage} as it travels: a plain message, or a run's {@link PostedReply}.
 *
 * @remarks
 * Strict: an unknown key is an error. `speaker` is a non-blank id, `content` a string, `at` a finite
 * number; `replyTo` is optional and, when present, a UUID. Give it as the item schema of a channel whose
 * messages come from outside the process (a `redisChannel`'s `schema`, a `StreamingChannel`'s), so a
 * malformed message is refused where it is read, naming the field.
 *
 * @example
 * ```ts
 * import { PostedMessageSchema } from '@rxagents/patterns';
 *
 * console.log(PostedMessageSchema.safeParse({ speaker: 'moderator', content: 'Wrap up, please.', at: 0 }).success); // true
 * const check = PostedMessageSchema.safeParse({ speaker: 'draft', content: 'A draft', at: 0, replyTo: 42 });
 * console.log(check.success, check.error?.issues[0]?.path); // false [ 'replyTo' ]
 * ```
 */
export const PostedMessageSchema = z.strictObject({
  speaker: configRules.id(),
  content: z.string({ error: 'must be a string' }),
  at: z.number({ error: 'must be a finite number' }).finite('must be a finite number'),
  replyTo: z.uuid({ error: 'must be the UUID of the call the message answers' }).optional(),
});
