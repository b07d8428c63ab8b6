import type { Part } from '@a2a-js/sdk';

/** The text of a message's text parts, joined. */
export function textOf(parts: readonly Part[]): string {
  let text = '';
  for (const part of parts) if (part.content?.$case === 'text') text += part.content.value;
  return text;
}

/**
 * A person's answer from a message: its first data part's value if it has one; else its text, read as JSON when the
 * question wants something other than a string (an approval, a number) and the text is JSON.
 */
export function answerFrom(parts: readonly Part[], schema: unknown): unknown {
  for (const part of parts) if (part.content?.$case === 'data') return part.content.value;
  const text = textOf(parts);
  if (wantsString(schema)) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function wantsString(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && (schema as { type?: unknown }).type === 'string';
}
