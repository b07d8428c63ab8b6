// The peer process of the redis suite's cross-process figures (not a suite: bench/src/suites holds those).
// Env: PORT, MODE. MODE=agent serves the one-chunk agent "echo" (prefix "bench-x"); MODE=hand answers each
// entry of the stream "handx:requests" with one XADD to "handx:replies" after a blocking XREAD. Prints
// "ready", then runs until it is killed.
import { defineAgent } from '@rxagents/core';
import { serveAgent } from '@rxagents/redis';
import { Redis } from 'ioredis';
import { of } from 'rxjs';

const port = Number(process.env.PORT);
const connect = () => new Redis({ port, host: '127.0.0.1' });

if (process.env.MODE === 'agent') {
  serveAgent(connect(), defineAgent('echo', () => of('pong')), { prefix: 'bench-x', concurrency: 1 });
} else {
  const reader = connect();
  const writer = connect();
  void (async () => {
    let lastId = '$';
    for (;;) {
      const reply = (await reader.xread('BLOCK', 0, 'STREAMS', 'handx:requests', lastId)) as Array<[string, Array<[string, string[]]>]> | null;
      for (const [, entries] of reply ?? []) {
        for (const [id] of entries) {
          lastId = id;
          void writer.xadd('handx:replies', 'MAXLEN', '~', 1_000, '*', 'reply', 'pong');
        }
      }
    }
  })();
}
process.stdout.write('ready\n');
