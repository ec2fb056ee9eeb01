import { Backoff } from './backoff';

describe('Backoff', () => {
  it('doubles up to the cap with jitter in the upper half, and resets', () => {
    const lowest = new Backoff(1000, 8000, () => 0);
    expect([lowest.next(), lowest.next(), lowest.next(), lowest.next(), lowest.next()]).toEqual([500, 1000, 2000, 4000, 4000]);
    const highest = new Backoff(1000, 8000, () => 1);
    expect([highest.next(), highest.next(), highest.next(), highest.next(), highest.next()]).toEqual([1000, 2000, 4000, 8000, 8000]);
    highest.reset();
    expect(highest.next()).toBe(1000);
  });
});
