import { Redis } from 'ioredis';
import { closeClient } from '../src/internal/closeClient';
import { describeRedis } from './support/describeRedis';

const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

describeRedis('closing a connection the package opened', (server) => {
  it('closes an open connection, and arms no timer for one that is closed already', async () => {
    const client = new Redis({ host: '127.0.0.1', port: server().port, ...server().clientOptions });
    await client.ping();
    const ended = new Promise((resolve) => client.once('end', resolve));
    closeClient(client);
    await ended;
    expect(client.status).toBe('end');
    // A second `disconnect()` of ioredis would arm a two-second timer here that nothing clears.
    const before = timers();
    closeClient(client);
    expect(timers()).toBe(before);
  });
});
