import { ChannelItemError } from '../errors/ChannelItemError';
import type { ItemSchema } from '../StreamingChannelOptions';

/** The item as the channel's schema parses it; a {@link ChannelItemError} listing the issues when it fails. @internal */
export function validateItem<T>(schema: ItemSchema<T>, channelId: string, item: T): T {
  const result = schema.safeParse(item);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => (issue.path.length === 0 ? issue.message : `${issue.path.map(String).join('.')}: ${issue.message}`));
  throw new ChannelItemError(channelId, item, issues, result.error);
}
