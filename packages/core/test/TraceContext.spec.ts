import { TraceContextSchema } from '../src';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('TraceContextSchema', () => {
  it.each([
    [{ traceparent: TRACEPARENT }],
    [{ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00' }],
    [{ traceparent: TRACEPARENT, tracestate: 'rojo=00f067aa0ba902b7' }],
    [{ traceparent: TRACEPARENT, tracestate: 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE' }],
    [{ traceparent: TRACEPARENT, tracestate: 'tenant@vendor=a, b=c' }],
  ])('accepts the W3C trace context %p', (context) => {
    expect(TraceContextSchema.parse(context)).toEqual(context);
  });

  it.each([
    [{ traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' }, 'an all-zero trace id'],
    [{ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01' }, 'an all-zero span id'],
    [{ traceparent: 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' }, 'another version'],
    [{ traceparent: '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01' }, 'uppercase hex'],
    [{ traceparent: `${TRACEPARENT}-extra` }, 'trailing fields'],
    [{ traceparent: TRACEPARENT, tracestate: '' }, 'an empty tracestate'],
    [{ traceparent: TRACEPARENT, tracestate: 'Key=value' }, 'an uppercase key'],
    [{ traceparent: TRACEPARENT, tracestate: 'a=b,' }, 'a trailing comma'],
    [{ traceparent: TRACEPARENT, tracestate: Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(',') }, 'more than 32 members'],
    [{ traceparent: TRACEPARENT, tracestate: `k=${'v'.repeat(600)}` }, 'more than 512 characters'],
    [{ traceparent: TRACEPARENT, baggage: 'x' }, 'an unknown field'],
    [{}, 'no traceparent'],
  ] as [unknown, string][])('refuses %p: %s', (context) => {
    expect(TraceContextSchema.safeParse(context).success).toBe(false);
  });
});
