import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { rmSync } from 'node:fs';
import { collectDocBlocks } from '../../../scripts/docBlocks';
import { runDocBlocks } from '../../../scripts/runDocBlocks';

// The observability guide's OTLP export example, run as it is written, against an OTLP HTTP receiver of
// our own on loopback (a stand-in for Jaeger, Tempo or Honeycomb, which read the same requests): the
// traces the example sends arrive, with the agent call's span in them.

jest.setTimeout(60_000);

const root = resolve(__dirname, '..', '..', '..');

describe("the observability guide's OTLP export example", () => {
  let server: Server;
  const received: { path: string; type: string | undefined; body: string }[] = [];
  const workDir = join(root, '.tmp', `otlp-guide-${process.pid}`);

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        received.push({ path: req.url ?? '', type: req.headers['content-type'], body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  });

  afterAll(async () => {
    await new Promise((closed) => server.close(closed));
    rmSync(workDir, { recursive: true, force: true });
  });

  it('sends the run to the OTLP endpoint: a trace with the support agent call', async () => {
    const block = collectDocBlocks(root).find((each) => each.file === 'docs/observability.md' && each.code.includes('OTLPTraceExporter'));
    expect(block).toBeDefined();
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
    const before = process.env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'];
    process.env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] = endpoint;
    try {
      const [run] = await runDocBlocks(root, [block!], { timeoutMs: 30_000, workDir });
      expect(run?.failure ?? '').toBe('');
    } finally {
      if (before === undefined) delete process.env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'];
      else process.env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] = before;
    }
    const traces = received.filter((request) => request.path === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    const sent = traces.map((request) => request.body).join('\n');
    expect(sent).toContain('invoke_agent support');
    expect(sent).toContain('invoke_workflow support');
  });
});
