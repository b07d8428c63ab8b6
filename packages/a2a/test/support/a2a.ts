import { Role, TaskState, type Message, type Part, type SendMessageRequest, type StreamResponse } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';

/** A user message as the A2A SDK's client sends it. */
export function userMessage(text: string, at: { taskId?: string; contextId?: string } = {}): Message {
  return {
    messageId: globalThis.crypto.randomUUID(),
    contextId: at.contextId ?? '',
    taskId: at.taskId ?? '',
    role: Role.ROLE_USER,
    parts: [textPart(text)],
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  };
}

export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: {}, filename: '', mediaType: 'text/plain' };
}

export function request(message: Message): SendMessageRequest {
  return { tenant: '', message, configuration: undefined, metadata: {} };
}

export function textOf(parts: readonly Part[] | undefined): string {
  return (parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
}

/** The task state a stream response reports, if any. */
export function stateOf(response: StreamResponse): TaskState | undefined {
  if (response.payload?.$case === 'task') return response.payload.value.status?.state;
  if (response.payload?.$case === 'statusUpdate') return response.payload.value.status?.state;
  return undefined;
}

/** Reads a stream to its end: every response, and the text of its artifact updates. */
export async function readAll(stream: AsyncIterable<StreamResponse>): Promise<{ responses: StreamResponse[]; text: string }> {
  const responses: StreamResponse[] = [];
  let text = '';
  for await (const response of stream) {
    responses.push(response);
    if (response.payload?.$case === 'artifactUpdate') text += textOf(response.payload.value.artifact?.parts);
  }
  return { responses, text };
}

/** Polls until `check` holds, at most `attempts` times (no timing assertion: the bound only ends a stuck test). */
export async function waitFor(check: () => boolean | Promise<boolean>, attempts = 400): Promise<void> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('waitFor: the condition never held');
}

export function bearer(client: Client, token: string) {
  void client;
  return { serviceParameters: { authorization: `Bearer ${token}` } };
}
