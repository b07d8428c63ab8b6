import { AppendLog } from '../src/conversation/AppendLog';

describe('AppendLog (the shared list behind run snapshots)', () => {
  it('appends without copying: 10,000 versions share one backing array', () => {
    const versions = [AppendLog.empty<number>()];
    for (let i = 0; i < 10_000; i += 1) versions.push((versions.at(-1) as AppendLog<number>).append(i));
    const newest = versions.at(-1) as AppendLog<number>;
    expect(newest.copiedElements).toBe(0);
    expect([newest.length, newest.last(), newest.at(4_321)]).toEqual([10_000, 9_999, 4_321]);
  });

  it('reads each version as it was, as a frozen array built once', () => {
    const one = AppendLog.empty<string>().append('a');
    const two = one.append('b');
    expect(one.toArray()).toEqual(['a']);
    expect(two.toArray()).toEqual(['a', 'b']);
    expect(Object.isFrozen(two.toArray())).toBe(true);
    expect(two.toArray()).toBe(two.toArray());
    expect(two.copiedElements).toBe(3);
  });

  it('copies only when an older version is appended to (a branch), and both branches stay right', () => {
    const base = AppendLog.empty<string>().append('a').append('b');
    const left = base.append('left');
    const right = base.append('right');
    expect([left.toArray(), right.toArray(), base.toArray()]).toEqual([['a', 'b', 'left'], ['a', 'b', 'right'], ['a', 'b']]);
    expect(left.append('more').toArray()).toEqual(['a', 'b', 'left', 'more']);
  });
});
