import { firstValueFrom, from, lastValueFrom, toArray } from 'rxjs';
import { DeliveryBuffer, defineAgent, invoke$, MAX_DELTA_LENGTH, MAX_TEXT_FIELD_LENGTH, observeRun, reduceRunView, emptyRunView, RunEventSchema, type RunEvent, type RunEventOf } from '../src';

const deltasOf = (events: RunEvent[]) => events.filter((event): event is RunEventOf<'text-delta'> => event.type === 'text-delta');
const rootEnd = (events: RunEvent[]) => events.find((event): event is RunEventOf<'run-end'> => event.type === 'run-end' && event.parentCallId === null) as RunEventOf<'run-end'>;

describe('how long an event can be', () => {
  it('says a reply given in one chunk longer than MAX_DELTA_LENGTH as several deltas whose concatenation is the reply', async () => {
    // A surrogate pair at every cut point: no piece may end in the middle of one.
    const reply = 'é"\n'.repeat(50_001) + '😀'.repeat(70_000);
    const writer = defineAgent('writer', async () => reply);
    const events = await lastValueFrom(observeRun('long', 'go', (run) => invoke$(writer, 'go', { run })).pipe(toArray()));
    const deltas = deltasOf(events);

    expect(deltas.length).toBeGreaterThan(3);
    expect(Math.max(...deltas.map((event) => event.delta.length))).toBeLessThanOrEqual(MAX_DELTA_LENGTH);
    expect(deltas.map((event) => event.delta).join('')).toBe(reply);
    // No piece starts with the second half of a pair (nor ends with the first).
    for (const { delta } of deltas) expect(/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(delta)).toBe(false);
  });

  it('keeps a short chunk as one delta', async () => {
    const writer = defineAgent('writer', () => from(['Once ', 'upon']));
    const events = await lastValueFrom(observeRun('short', 'go', (run) => invoke$(writer, 'go', { run })).pipe(toArray()));
    expect(deltasOf(events).map((event) => event.delta)).toEqual(['Once ', 'upon']);
  });

  it('does not repeat an output longer than MAX_TEXT_FIELD_LENGTH as JSON in run-end, and says so', async () => {
    // Fewer characters than the limit, but quotes take two characters each in JSON.
    const reply = '"'.repeat(MAX_TEXT_FIELD_LENGTH / 2 + 1);
    const writer = defineAgent('writer', async () => reply);
    const events = await lastValueFrom(observeRun('long', 'go', (run) => invoke$(writer, 'go', { run })).pipe(toArray()));
    const end = rootEnd(events);

    expect(end).toMatchObject({ success: true, outputOmitted: true });
    expect(end.output).toBeUndefined();
    expect(RunEventSchema.safeParse(end).success).toBe(true);
    expect(JSON.stringify(end).length).toBeLessThan(1_000);
    // A reader has the reply in the call's deltas; the view's run node keeps no repeat of it.
    expect(deltasOf(events).map((event) => event.delta).join('')).toBe(reply);
    const view = events.reduce(reduceRunView, emptyRunView);
    expect(view.status).toBe('completed');
    expect(view.nodes.find((node) => node.kind === 'call')?.text).toBe(reply);
  });

  it('does not repeat an input longer than MAX_TEXT_FIELD_LENGTH as JSON in run-start or call-start, and says so', async () => {
    const input = '\n'.repeat(MAX_TEXT_FIELD_LENGTH / 2 + 1);
    const echo = defineAgent('echo', async (given) => `${given.length}`);
    const events = await lastValueFrom(observeRun('long', input, (run) => invoke$(echo, input, { run })).pipe(toArray()));
    const starts = events.filter((event) => event.type === 'run-start' || event.type === 'call-start');

    expect(starts).toEqual([expect.objectContaining({ input: '', inputOmitted: true }), expect.objectContaining({ input: '', inputOmitted: true })]);
    for (const start of starts) expect(RunEventSchema.safeParse(start).success).toBe(true);
    // The agent itself got the whole input.
    expect(deltasOf(events).map((event) => event.delta)).toEqual([`${input.length}`]);
  });

  it('repeats an output that fits', async () => {
    const writer = defineAgent('writer', async () => 'a'.repeat(MAX_TEXT_FIELD_LENGTH));
    const events = await lastValueFrom(observeRun('fits', 'go', (run) => invoke$(writer, 'go', { run })).pipe(toArray()));
    expect(rootEnd(events).output).toHaveLength(MAX_TEXT_FIELD_LENGTH);
    expect(rootEnd(events).outputOmitted).toBeUndefined();
  });

  it('conflates a stalled reader\'s deltas into pieces of at most MAX_DELTA_LENGTH characters, the text whole', async () => {
    const buffer = new DeliveryBuffer<RunEvent>(4, 'conflate');
    const writer = defineAgent('writer', () => from(Array.from({ length: 5_000 }, (_, index) => `${index % 10}`.repeat(100))));
    observeRun('stalled', 'go', (run) => invoke$(writer, 'go', { run })).subscribe({ next: (event) => buffer.push(event), complete: () => buffer.end() });
    const read: RunEvent[] = [];
    for (let batch = await buffer.take(); batch !== undefined; batch = await buffer.take()) read.push(...batch);
    const deltas = deltasOf(read);

    expect(Math.max(...deltas.map((event) => event.delta.length))).toBeLessThanOrEqual(MAX_DELTA_LENGTH);
    expect(deltas.length).toBeGreaterThanOrEqual(Math.ceil(500_000 / MAX_DELTA_LENGTH));
    expect(deltas.length).toBeLessThan(20);
    expect(deltas.map((event) => event.delta).join('')).toBe(Array.from({ length: 5_000 }, (_, index) => `${index % 10}`.repeat(100)).join(''));
    expect(await firstValueFrom(from(read.slice(-1)))).toMatchObject({ type: 'run-end', success: true });
  });
});
