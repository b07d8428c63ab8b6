import { Observable, asyncScheduler } from 'rxjs';
import { defineAgent, observeRun, stream, traceRun } from '@rxagents/core';
const N = 1_000_000;
const agent = defineAgent('writer', () => new Observable((s) => { for (let i = 0; i < N && !s.closed; i++) s.next('x'); s.complete(); }));
function direct() { let n = 0; stream(agent, 'go').subscribe(() => n++); return n; }
function nested() { let n = 0; observeRun('outer', 'go', (run) => traceRun(run, 'inner', 'go', (inner) => stream(agent, 'go', { run: inner }))).subscribe((e) => { if (e.type === 'text-delta') n++; }); return n; }
function bare() { let n = 0; const root = { runId: 'r', callId: null, parentCallId: null, scheduler: asyncScheduler, emit: (e) => { if (e.type === 'text-delta') n++; } };
  traceRun(root, 'outer', 'go', (run) => traceRun(run, 'inner', 'go', (inner) => stream(agent, 'go', { run: inner }))).subscribe(); return n; }
function flat() { let n = 0; const root = { runId: 'r', callId: 'c', parentCallId: null, scheduler: { now: () => 0, schedule: asyncScheduler.schedule }, emit: (e) => { if (e.type === 'text-delta') n++; } };
  stream(agent, 'go', { run: root }).subscribe(); return n; }
const zero = { now: () => 0, schedule: asyncScheduler.schedule };
function nestedZero() { let n = 0; observeRun('outer', 'go', (run) => traceRun(run, 'inner', 'go', (inner) => stream(agent, 'go', { run: inner })), { scheduler: zero }).subscribe((e) => { if (e.type === 'text-delta') n++; }); return n; }
function twoZero() { let n = 0; const root = { runId: 'r', callId: null, parentCallId: null, scheduler: zero, emit: (e) => { if (e.type === 'text-delta') n++; } };
  traceRun(root, 'outer', 'go', (run) => traceRun(run, 'inner', 'go', (inner) => stream(agent, 'go', { run: inner }))).subscribe(); return n; }
function oneZeroObs() { let n = 0; observeRun('outer', 'go', (run) => stream(agent, 'go', { run }), { scheduler: zero }).subscribe((e) => { if (e.type === 'text-delta') n++; }); return n; }
function cachedClock() { let c = 0, v = false; return { now: () => { if (v) return c; c = Date.now(); v = true; queueMicrotask(() => { v = false; }); return c; }, schedule: asyncScheduler.schedule }; }
function twoCached() { let n = 0; const root = { runId: 'r', callId: null, parentCallId: null, scheduler: cachedClock(), emit: (e) => { if (e.type === 'text-delta') n++; }, pace: undefined };
  traceRun(root, 'outer', 'go', (run) => traceRun(run, 'inner', 'go', (inner) => stream(agent, 'go', { run: inner }))).subscribe(); return n; }
function twoSub() { let n = 0; new Observable((subscriber) => { const root = { runId: 'r', callId: null, parentCallId: null, scheduler: zero, emit: (e) => subscriber.next(e), pace: undefined };
  return traceRun(root, 'outer', 'go', (run) => traceRun(run, 'inner', 'go', (inner) => stream(agent, 'go', { run: inner }))).subscribe({ complete: () => subscriber.complete() }); }).subscribe((e) => { if (e.type === 'text-delta') n++; }); return n; }
const fns = { direct, nested, flat, twoZero, twoCached, twoSub };
for (let i = 0; i < 3; i++) for (const f of Object.values(fns)) f();
const times = Object.fromEntries(Object.keys(fns).map((k) => [k, []]));
for (let i = 0; i < 11; i++) for (const [k, f] of Object.entries(fns)) { global.gc(); const t = process.hrtime.bigint(); if (f() !== N && k !== 'direct') throw new Error(k); times[k].push(Number(process.hrtime.bigint() - t) / 1e6); }
const med = (a) => a.sort((x, y) => x - y)[5];
const d = med(times.direct);
for (const k of Object.keys(fns)) console.log(k, med(times[k]).toFixed(1), 'ms', (med(times[k]) / d).toFixed(2));
