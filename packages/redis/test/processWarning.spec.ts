import { processWarning } from '../src/internal/processWarning';

describe('the default onError of workers and buses', () => {
  afterEach(() => jest.restoreAllMocks());

  it('emits a process warning with the code and the error text, also for an error made in another realm', () => {
    // Under jest this Error comes from the test's sandbox, not from Node's realm, and Node's emitWarning
    // throws a TypeError for an Error of another realm: the warning must carry text. The spy stands in for
    // Node's emitWarning with that same check, so the test captures the warning instead of printing it.
    const emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation((warning: string | Error) => {
      if (typeof warning !== 'string') throw new TypeError('The "warning" argument must be of type string or an instance of Error');
    });
    expect(() => processWarning('RXAGENTS_TEST')(new Error('connection lost'))).not.toThrow();
    expect(emitWarning).toHaveBeenCalledWith('Error: connection lost', { code: 'RXAGENTS_TEST' });
  });

  it('takes anything thrown, not only errors', () => {
    const emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    processWarning('RXAGENTS_TEST')('a plain string');
    expect(emitWarning).toHaveBeenCalledWith('a plain string', { code: 'RXAGENTS_TEST' });
  });
});
