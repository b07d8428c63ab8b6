import { processWarning } from '../src/internal/processWarning';

describe('the default onError of workers and buses', () => {
  afterEach(() => jest.restoreAllMocks());

  it('emits a process warning with the code and the error text, also for an error made in another realm', () => {
    // The spy calls through to Node's own emitWarning. Under jest this Error comes from the test's sandbox,
    // not from Node's realm: `process.emitWarning(error)` throws a TypeError for such an error.
    const emitWarning = jest.spyOn(process, 'emitWarning');
    expect(() => processWarning('RXAGENTS_TEST')(new Error('connection lost'))).not.toThrow();
    expect(emitWarning).toHaveBeenCalledWith('Error: connection lost', { code: 'RXAGENTS_TEST' });
  });

  it('takes anything thrown, not only errors', () => {
    const emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    processWarning('RXAGENTS_TEST')('a plain string');
    expect(emitWarning).toHaveBeenCalledWith('a plain string', { code: 'RXAGENTS_TEST' });
  });
});
