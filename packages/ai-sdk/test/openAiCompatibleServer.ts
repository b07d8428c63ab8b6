import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A chat-completions request body as the OpenAI-compatible provider sends it. */
export interface ChatCompletionsBody {
  readonly model: string;
  readonly stream?: boolean;
  readonly messages: readonly { readonly role: string; readonly content?: unknown; readonly tool_calls?: unknown }[];
  readonly tools?: readonly { readonly type: string; readonly function: { readonly name: string; readonly parameters?: unknown } }[];
}

/** How the test server answers a request. */
export type ServerReply =
  | { readonly kind: 'text'; readonly deltas: readonly string[] }
  | { readonly kind: 'tool-call'; readonly name: string; readonly argumentChunks: readonly string[] }
  | { readonly kind: 'hang'; readonly firstDelta: string }
  | { readonly kind: 'error-then-hang'; readonly firstDelta: string; readonly message: string }
  | { readonly kind: 'http-error'; readonly status: number; readonly message: string };

/** A tiny OpenAI-compatible chat-completions server on 127.0.0.1, answering `stream: true` requests with SSE. */
export interface OpenAiCompatibleServer {
  /** `http://127.0.0.1:<port>/v1`, for `createOpenAICompatible({ baseURL })`. */
  readonly baseURL: string;
  /** Every request body received, in order. */
  readonly requests: readonly ChatCompletionsBody[];
  /** Resolves when the client closed a `hang` or `error-then-hang` request's connection. */
  readonly hungUpRequest: Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the server. `decide` picks the reply from the request; usage is always reported in a last chunk
 * (prompt tokens = number of messages × 10, completion tokens = number of deltas or argument chunks).
 */
export function startOpenAiCompatibleServer(decide: (body: ChatCompletionsBody) => ServerReply): Promise<OpenAiCompatibleServer> {
  const requests: ChatCompletionsBody[] = [];
  let hungUp: () => void = () => undefined;
  const hungUpRequest = new Promise<void>((resolve) => {
    hungUp = resolve;
  });

  const handle = (request: IncomingMessage, response: ServerResponse, text: string): void => {
    if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
      response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    const body = JSON.parse(text) as ChatCompletionsBody;
    requests.push(body);
    const reply = decide(body);
    if (reply.kind === 'http-error') {
      response.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: reply.message, type: 'test_error' } }));
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const send = (chunk: unknown): void => {
      response.write(`data: ${JSON.stringify(chunk)}\n\n`);
    };
    const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): Record<string, unknown> => ({
      id: 'chatcmpl-test',
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: body.model,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    });
    const finish = (finishReason: string, completionTokens: number): void => {
      send(chunk({}, finishReason));
      const promptTokens = body.messages.length * 10;
      send({
        id: 'chatcmpl-test',
        object: 'chat.completion.chunk',
        created: 1_700_000_000,
        model: body.model,
        choices: [],
        usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
      });
      response.end('data: [DONE]\n\n');
    };

    switch (reply.kind) {
      case 'text':
        send(chunk({ role: 'assistant', content: '' }));
        for (const delta of reply.deltas) send(chunk({ content: delta }));
        finish('stop', reply.deltas.length);
        return;
      case 'tool-call':
        send(chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_test_1', type: 'function', function: { name: reply.name, arguments: '' } }] }));
        for (const part of reply.argumentChunks) send(chunk({ tool_calls: [{ index: 0, function: { arguments: part } }] }));
        finish('tool_calls', reply.argumentChunks.length);
        return;
      case 'hang':
        response.on('close', () => hungUp());
        send(chunk({ role: 'assistant', content: reply.firstDelta }));
        return;
      case 'error-then-hang':
        response.on('close', () => hungUp());
        send(chunk({ role: 'assistant', content: reply.firstDelta }));
        send({ error: { message: reply.message, type: 'server_error' } });
        return;
    }
  };

  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => handle(request, response, Buffer.concat(parts).toString('utf8')));
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        baseURL: `http://127.0.0.1:${port}/v1`,
        requests,
        hungUpRequest,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** The text of the last user message of a request, whatever content shape the provider sent. */
export function lastUserText(body: ChatCompletionsBody): string {
  const last = [...body.messages].reverse().find((message) => message.role === 'user');
  if (last === undefined) return '';
  if (typeof last.content === 'string') return last.content;
  if (Array.isArray(last.content)) return last.content.map((part: { text?: string }) => part.text ?? '').join('');
  return '';
}
