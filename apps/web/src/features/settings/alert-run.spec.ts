// Jest's functions imported, not global: the web's tsconfig (which type-checks these specs) loads no test types.
import { describe, expect, it } from '@jest/globals';
import { alertRunSentence } from './alert-run';

describe('alertRunSentence', () => {
  it('says the totals alone when nothing failed', () => {
    expect(alertRunSentence({ alertsSent: 2, alreadySent: 1, failed: 0, failures: [] })).toBe(
      'Done: 2 sent, 1 already sent before, 0 failed.',
    );
  });

  it('says why the failed alerts failed, with the reply code where the relay gave one', () => {
    expect(
      alertRunSentence({
        alertsSent: 1,
        alreadySent: 0,
        failed: 4,
        failures: [
          { reason: 'rejected', replyCode: 550, count: 3 },
          { reason: 'timeout', replyCode: null, count: 1 },
        ],
      }),
    ).toBe(
      'Done: 1 sent, 0 already sent before, 4 failed (3 rejected with reply code 550; 1 relay did not answer in time; retried on the next run).',
    );
  });
});
