export { remoteAgent, RemoteAgentOptionsSchema, type RemoteAgentOptions } from './remoteAgent';
export { serveAgent, ServeAgentOptionsSchema, type ServeAgentOptions, type ServedAgent } from './serveAgent';
export { RemoteAgentError } from './errors/RemoteAgentError';
export { RemoteCallAttemptsError } from './errors/RemoteCallAttemptsError';
export { RemoteCallRestartedError } from './errors/RemoteCallRestartedError';
export { redisChannel, RedisChannelOptionsSchema, type RedisChannelOptions } from './redisChannel';
export type { RedisChannel } from './types/RedisChannel';
export { RemoteChannelError } from './errors/RemoteChannelError';
export type { RedisClient } from './types/RedisClient';
