import { Observable } from 'rxjs';
import { defineAgent, observeRun, stream, traceRun } from '@rxagents/core';
const N = 1_000_000;
const agent = defineAgent('writer', () => new Observable((s) => { for (let i = 0; i < N && !s.closed; i++) s.next('x'); s.complete(); }));
function direct() { let n = 0; stream(agent, 'go').subscribe(() => n++); return n; }
function nested() { let n = 0; observeRun('outer', 'go', (run) => traceRun(run, 'inner', 'go', (inner) => stream(agent, 'go', { run: inner }))).subscribe((e) => { if (e.type === 'text-delta') n++; }); return n; }
const gc = process.argv[2] === 'gc';
for (let i = 0; i < 3; i++) { direct(); nested(); }
const r = [];
for (let i = 0; i < 15; i++) {
  if (gc) global.gc(); let t = process.hrtime.bigint(); direct(); const d = Number(process.hrtime.bigint() - t);
  if (gc) global.gc(); t = process.hrtime.bigint(); nested(); const n = Number(process.hrtime.bigint() - t);
  r.push(n / d);
}
r.sort((a, b) => a - b); console.log(gc ? 'forced gc' : 'no forced gc', 'ratio median', r[7].toFixed(2));
