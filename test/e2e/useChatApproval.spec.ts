import { createRequire } from 'node:module';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { lastValueFrom, ReplaySubject, share, type Observable } from 'rxjs';
import type { Browser } from 'playwright-core';
import { answerInterrupt, askForApproval, defineAgent, InterruptNotFoundError, invoke$, observeRun, type RunEvent } from '@rxagents/core';
import { answerFromChatRequest, ChatRequestError, toUIMessageStreamResponse, toWebRequest, writeToNodeResponse, type ChatRequestBody } from '@rxagents/web';
import { describeInChromium, launchChromium } from './chromium';

// The `useChat` card of docs/interrupts.md ("Approvals in a useChat page"), taken from the guide as it
// is, bundled with React 19 and the AI SDK's own `@ai-sdk/react`, in headless Chromium against a chat
// route on loopback: the card shows the approval the run asks for, Approve answers it through
// `addToolApprovalResponse`, and the chat sends the answer and reads the rest of the run by itself.

jest.setTimeout(60_000);

const root = join(__dirname, '..', '..');
type Build = (options: Record<string, unknown>) => Promise<{ outputFiles: { text: string }[] }>;
const { build } = createRequire(join(root, 'examples', 'package.json'))('esbuild') as { build: Build };

/** The guide's `useChat` component: the `tsx` block of its "Approvals in a useChat page" section. */
function guideComponent(): string {
  const guide = readFileSync(join(root, 'docs', 'interrupts.md'), 'utf8');
  const section = guide.slice(guide.indexOf('## Approvals in a useChat page'));
  const block = /```tsx\n([\s\S]*?)```/.exec(section);
  if (block === null) throw new Error('docs/interrupts.md has no tsx block in "Approvals in a useChat page"');
  return block[1] as string;
}

async function bundle(directory: string): Promise<string> {
  writeFileSync(join(directory, 'Refunds.tsx'), guideComponent());
  writeFileSync(join(directory, 'main.tsx'), "import { createRoot } from 'react-dom/client';\nimport { Refunds } from './Refunds';\ncreateRoot(document.getElementById('root')!).render(<Refunds />);\n");
  const result = await build({
    entryPoints: [join(directory, 'main.tsx')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  return (result.outputFiles[0] as { text: string }).text;
}

/** The chat route of the guide: a run per new conversation, kept going while a person decides. */
function chatRoute(): (request: Request) => Promise<Response> {
  const cashier = defineAgent('cashier', async (customer, { run }) => {
    const decision = await lastValueFrom(askForApproval(run, 'refund', { customer, amount: 120 }, { question: `Refund 120 EUR to ${customer}?` }));
    return decision.approved ? `Refunded 120 EUR to ${customer}.` : `No refund: ${decision.reason ?? 'refused'}.`;
  });
  const runs = new Map<string, Observable<RunEvent>>();
  const startRun = (customer: string): Observable<RunEvent> => {
    const events$ = observeRun('refund', customer, (run) => invoke$(cashier, customer, { run })).pipe(
      share({ connector: () => new ReplaySubject<RunEvent>(), resetOnError: false, resetOnComplete: false, resetOnRefCountZero: false }),
    );
    events$.subscribe((event) => {
      if (event.type === 'run-start' && event.parentCallId === null) runs.set(event.runId, events$);
    });
    return events$;
  };
  const lastText = (body: ChatRequestBody): string =>
    (body.messages.at(-1)?.parts ?? []).map((part) => (typeof part === 'object' && part !== null && 'text' in part ? String(part.text) : '')).join('');
  return async (request) => {
    try {
      const { answers, body } = await answerFromChatRequest(request, answerInterrupt);
      const events$ = (answers.length > 0 ? runs.get(answers[0]!.runId) : undefined) ?? startRun(lastText(body));
      return toUIMessageStreamResponse(events$, { continueAfter: answers.map((answer) => answer.interruptId), endAtApproval: true });
    } catch (error) {
      if (error instanceof ChatRequestError) return Response.json({ error: { code: error.code } }, { status: error.status });
      if (error instanceof InterruptNotFoundError) return Response.json({ error: { code: error.code } }, { status: 404 });
      throw error;
    }
  };
}

describeInChromium("the guide's useChat approval card in Chromium", () => {
  const directory = join(root, '.tmp', `use-chat-${process.pid}`);
  let server: Server;
  let url: string;
  let browser: Browser;
  const chats: string[] = [];

  beforeAll(async () => {
    mkdirSync(directory, { recursive: true });
    const [script, launched] = await Promise.all([bundle(directory), launchChromium()]);
    browser = launched;
    const chat = chatRoute();
    server = createServer((req, res) => {
      void (async () => {
        const request = toWebRequest(req, res);
        const { pathname } = new URL(request.url);
        if (pathname === '/') return writeToNodeResponse(new Response('<!doctype html><meta charset="utf-8"><div id="root"></div><script type="module" src="/app.js"></script>', { headers: { 'content-type': 'text/html' } }), res);
        if (pathname === '/app.js') return writeToNodeResponse(new Response(script, { headers: { 'content-type': 'text/javascript' } }), res);
        if (pathname === '/api/chat' && request.method === 'POST') {
          chats.push(pathname);
          return writeToNodeResponse(await chat(request), res);
        }
        return writeToNodeResponse(new Response('Not found', { status: 404 }), res);
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    rmSync(directory, { recursive: true, force: true });
  });

  it('shows the approval card; Approve sends the answer by itself and the run finishes in the same message', async () => {
    const page = await browser.newPage();
    await page.goto(url);
    await page.click('text=Refund Ada');
    await page.waitForSelector('text=Refund 120 EUR to Ada?');
    expect(await page.textContent('pre')).toContain('"amount": 120');
    await page.click('text=Approve');
    await page.waitForSelector('text=Refunded 120 EUR to Ada.');
    expect(await page.textContent('body')).toContain('refund: output-available');
    // One request asked, the chat's own second request carried the answer.
    expect(chats).toHaveLength(2);
    await page.close();
  });

  it('Reject refuses: the run says why', async () => {
    const page = await browser.newPage();
    await page.goto(url);
    await page.click('text=Refund Ada');
    await page.waitForSelector('text=Refund 120 EUR to Ada?');
    await page.click('text=Reject');
    await page.waitForSelector('text=No refund: Rejected on the page.');
    await page.close();
  });
});
