import { ConfigError } from '@rxagents/core';
import { AnswerNotSentError, postAnswer } from '@rxagents/react';

/** A stand-in server: records what it was sent and answers `response`. */
function server(response: () => Response | Promise<Response>) {
  const sent: { url: string; method: string | undefined; type: string | null; body: unknown }[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    sent.push({ url: String(input), method: init?.method, type: new Headers(init?.headers).get('content-type'), body: JSON.parse(String(init?.body)) });
    return response();
  };
  return { sent, fetch };
}

const url = 'https://example.com/runs/abc/answers';

describe('postAnswer', () => {
  it('posts { interruptId, answer } as JSON and resolves with success for a 2xx', async () => {
    const { sent, fetch } = server(() => new Response(null, { status: 204 }));
    await expect(postAnswer({ url, interruptId: 'id-1', answer: { approved: true }, fetch })).resolves.toEqual({ success: true, status: 204 });
    expect(sent).toEqual([{ url, method: 'POST', type: 'application/json', body: { interruptId: 'id-1', answer: { approved: true } } }]);
  });

  it("resolves with a run registry's refusal: its status, code, message and issues", async () => {
    const refusal = { error: { code: 'INTERRUPT_ANSWER_INVALID', message: 'The answer does not fit the question', issues: [{ path: 'approved', rule: 'must be a boolean' }] } };
    const { fetch } = server(() => Response.json(refusal, { status: 422 }));
    await expect(postAnswer({ url, interruptId: 'id-1', answer: { approved: 'yes' }, fetch })).resolves.toEqual({ success: false, status: 422, ...refusal.error });
    const notFound = server(() => Response.json({ error: { code: 'INTERRUPT_NOT_FOUND', message: 'This run has no such open interrupt' } }, { status: 404 }));
    await expect(postAnswer({ url, interruptId: 'id-2', answer: 'x', fetch: notFound.fetch })).resolves.toEqual({
      success: false,
      status: 404,
      code: 'INTERRUPT_NOT_FOUND',
      message: 'This run has no such open interrupt',
      issues: [],
    });
  });

  it('refuses without details when the body is not a refusal (a proxy page, a huge or odd body)', async () => {
    const { fetch } = server(() => new Response('<h1>Bad gateway</h1>', { status: 502 }));
    await expect(postAnswer({ url, interruptId: 'id-1', answer: 1, fetch })).resolves.toEqual({
      success: false,
      status: 502,
      code: 'ANSWER_REFUSED',
      message: 'The server refused the answer (502)',
      issues: [],
    });
    const odd = server(() => Response.json({ error: { code: 'X', message: 'm', issues: Array(101).fill({ path: '', rule: 'r' }) } }, { status: 422 }));
    await expect(postAnswer({ url, interruptId: 'id-1', answer: 1, fetch: odd.fetch })).resolves.toMatchObject({ code: 'ANSWER_REFUSED' });
    // A body past 64 KiB is not read to its end (the stream is cancelled), however well-formed.
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(new TextEncoder().encode(`{"error":{"code":"X","message":"${'m'.repeat(1_000)}`)),
      pull: (controller) => controller.enqueue(new Uint8Array(16_384).fill(0x6d)),
      cancel: () => void (cancelled = true),
    });
    const huge = server(() => new Response(endless, { status: 422, headers: { 'content-type': 'application/json' } }));
    await expect(postAnswer({ url, interruptId: 'id-1', answer: 1, fetch: huge.fetch })).resolves.toMatchObject({ status: 422, code: 'ANSWER_REFUSED' });
    expect(cancelled).toBe(true);
  });

  it('rejects with AnswerNotSentError (retryable) when no response came, naming neither the URL nor the ids', async () => {
    const fetch: typeof globalThis.fetch = async () => {
      throw new TypeError('Failed to fetch');
    };
    const error = await postAnswer({ url, interruptId: 'secret-id', answer: 1, fetch }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AnswerNotSentError);
    expect(error).toMatchObject({ code: 'ANSWER_NOT_SENT', retryable: true, cause: expect.any(TypeError) });
    expect((error as Error).message).not.toMatch(/abc|secret-id/);
  });

  it("rejects with the signal's reason when aborted", async () => {
    const controller = new AbortController();
    const fetch: typeof globalThis.fetch = (_input, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));
    const sent = postAnswer({ url, interruptId: 'id-1', answer: 1, fetch, signal: controller.signal });
    const reason = new Error('the person closed the dialog');
    controller.abort(reason);
    await expect(sent).rejects.toBe(reason);
  });

  it('rejects bad options with a ConfigError, an answer that is not JSON among them', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    await expect(postAnswer({ url, interruptId: '', answer: cyclic })).rejects.toThrow(ConfigError);
    await expect(postAnswer({ url, interruptId: '', answer: cyclic })).rejects.toThrow(/interruptId must be a non-empty string.*answer must be a JSON value/);
    await expect(postAnswer({ url: 7, interruptId: 'id', answer: 1 } as never)).rejects.toThrow(/url must be a non-empty string or a URL/);
    await expect(postAnswer({ url, interruptId: 'id' } as never)).rejects.toThrow(/answer must be a JSON value/);
  });
});
