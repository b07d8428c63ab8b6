import fc from 'fast-check';
import { PersistentList } from '../src/internal/PersistentList';

describe('PersistentList', () => {
  it('reads as the array it was built from, across the sizes where the tree grows a level (32, 1,024, 32,768)', () => {
    for (const size of [0, 1, 31, 32, 33, 1_023, 1_024, 1_025, 32_769]) {
      const items = Array.from({ length: size }, (_, i) => i);
      const list = PersistentList.of(items);
      expect(list.length).toBe(size);
      expect(list.toArray()).toEqual(items);
      expect([list.at(0), list.at(size - 1), list.at(size), list.at(-1)]).toEqual([items[0], items[size - 1], undefined, undefined]);
    }
  });

  it('set and push give a new list and leave every earlier one as it was', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.record({ push: fc.integer() }), fc.record({ set: fc.nat(), value: fc.integer() })), { maxLength: 200 }), (steps) => {
        const lists = [PersistentList.empty<number>()];
        const arrays: number[][] = [[]];
        for (const step of steps) {
          const list = lists[lists.length - 1] as PersistentList<number>;
          const array = [...(arrays[arrays.length - 1] as number[])];
          if ('push' in step) {
            lists.push(list.push(step.push));
            array.push(step.push);
          } else if (array.length > 0) {
            lists.push(list.set(step.set % array.length, step.value));
            array[step.set % array.length] = step.value;
          } else continue;
          arrays.push(array);
        }
        expect(lists.map((list) => list.toArray())).toEqual(arrays);
      }),
    );
  });

  it('refuses to set an entry past its end', () => {
    expect(() => PersistentList.of([1]).set(1, 2)).toThrow(RangeError);
  });
});
