// A real MCP server process over stdio, started by serveMcpOverStdio.spec.ts with `node --import tsx`.
import { defineAgent } from '@rxagents/core';
import { serveMcpOverStdio } from '@rxagents/mcp';
import { Observable } from 'rxjs';

const teller = defineAgent('teller', async function* (input) {
  yield* ['Once ', 'upon ', `a ${input}.`];
});
// Streams two chunks, then waits; when its call is aborted it says so on stderr (stdout is the protocol).
const slow = defineAgent('slow', (_input, { signal }) => {
  signal.addEventListener('abort', () => process.stderr.write('slow aborted\n'), { once: true });
  return new Observable<string>((subscriber) => {
    subscriber.next('thinking ');
    subscriber.next('harder');
  });
});

await serveMcpOverStdio({ name: 'stdio-team', version: '1.0.0', tools: [{ name: 'tell', agent: teller }, { name: 'slow', agent: slow }] });
