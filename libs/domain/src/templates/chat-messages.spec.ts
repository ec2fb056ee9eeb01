import { ntfyMessage, pagerDutyPayload, slackText, teamsCard, urgencyOf } from './chat-messages';

const message = { title: 'Renew <!channel> & co', sections: ['a < b', 'c > d'], urgency: 4 as const, eventTypes: ['cert_expiring'] };

describe('chat messages', () => {
  it('rates urgency 5 for an unusable certificate, 4 at 7 days or fewer, 3 otherwise', () => {
    expect(urgencyOf({ eventType: 'cert_revoked', values: { DaysRemaining: '90' } })).toBe(5);
    expect(urgencyOf({ eventType: 'cert_expired', values: {} })).toBe(5);
    expect(urgencyOf({ eventType: 'cert_expiring', values: { DaysRemaining: '7' } })).toBe(4);
    expect(urgencyOf({ eventType: 'cert_expiring', values: { DaysRemaining: '8' } })).toBe(3);
    expect(urgencyOf({ eventType: 'renewal_overdue', values: {} })).toBe(3);
  });

  it('escapes what Slack would read as a mention or a link, the title in bold', () => {
    expect(slackText(message)).toBe('*Renew &lt;!channel&gt; &amp; co*\n\na &lt; b\n\nc &gt; d');
  });

  it('puts the title and each section in TextBlocks of an Adaptive Card 1.4', () => {
    const { content } = teamsCard(message).attachments[0];
    expect(content.version).toBe('1.4');
    expect(content.body.map((block) => [block.text, block.weight ?? null])).toEqual([
      ['Renew <!channel> & co', 'Bolder'],
      ['a < b', null],
      ['c > d', null],
    ]);
  });

  it('gives ntfy the urgency as priority and its emoji tag first', () => {
    expect(ntfyMessage(message)).toEqual({
      title: 'Renew <!channel> & co',
      priority: 4,
      tags: ['warning', 'cert_expiring'],
      body: 'a < b\n\nc > d',
    });
  });

  it('gives PagerDuty a summary cut to 1,024 characters and the severity of the urgency', () => {
    const payload = pagerDutyPayload(
      { eventType: 'cert_expired', bucket: 0, values: { CommonName: 'x' } },
      { subject: 's'.repeat(2000), text: 'the text' },
    );
    expect(payload).toMatchObject({ source: 'certkeeper', severity: 'critical', custom_details: { message: 'the text', CommonName: 'x' } });
    expect(payload.summary).toHaveLength(1024);
  });
});
