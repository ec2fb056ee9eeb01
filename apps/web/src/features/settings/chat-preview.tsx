import type { ReactNode } from 'react';
import type { Schemas } from '../../api/client';
import { type MrkdwnPart, parseMrkdwn } from './slack-mrkdwn';

type ChatPreviewData = NonNullable<Schemas['TemplatePreviewDto']['chat']>;
type ChatChannel = 'slack' | 'teams' | 'ntfy' | 'pagerduty';

const CHANNEL_NAMES: Record<ChatChannel, string> = { slack: 'Slack', teams: 'Teams', ntfy: 'ntfy', pagerduty: 'PagerDuty' };
// ntfy's names for its priorities, and the emoji it shows for a tag that names one.
const NTFY_PRIORITIES: Record<number, string> = { 3: 'default', 4: 'high', 5: 'urgent' };
const NTFY_EMOJI: Record<string, string> = { rotating_light: '🚨', warning: '⚠️', lock: '🔒' };

/**
 * A chat template's preview as its channel shows the message (docs/api-contract.md section 17),
 * from the request the sender would post: Slack's mrkdwn applied, Teams' card, ntfy's title,
 * priority and tags over its body, PagerDuty's summary and severity.
 */
export function ChatPreview({ id, channel, chat }: { id: string; channel: ChatChannel; chat: ChatPreviewData }) {
  const headingId = `${id}-chat-heading`;
  return (
    <section className="chat-preview" aria-labelledby={headingId} data-testid={`${id}-chat`}>
      <h4 id={headingId}>As {CHANNEL_NAMES[channel]} shows it</h4>
      {channel === 'slack' && (
        <div className="chat-message">
          <MrkdwnText mrkdwn={chat.title} />
        </div>
      )}
      {channel === 'teams' && (
        <div className="chat-message chat-card">
          <p className="chat-card-title">{chat.title}</p>
          {chat.blocks.map((block, index) => (
            <p key={index} className="chat-text">
              {block}
            </p>
          ))}
        </div>
      )}
      {channel === 'ntfy' && (
        <FactsAndBody
          facts={[
            [
              'Title',
              <>
                {chat.tags.length > 0 && NTFY_EMOJI[chat.tags[0]] && <span aria-hidden="true">{NTFY_EMOJI[chat.tags[0]]} </span>}
                <strong>{chat.title}</strong>
              </>,
            ],
            ['Priority', `${chat.priority} (${NTFY_PRIORITIES[chat.priority ?? 3]})`],
            ['Tags', chat.tags.map((tag) => (NTFY_EMOJI[tag] ? `${NTFY_EMOJI[tag]} ${tag}` : tag)).join(', ')],
          ]}
          body={chat.blocks}
        />
      )}
      {channel === 'pagerduty' && (
        <FactsAndBody
          facts={[
            ['Summary', <strong>{chat.title}</strong>],
            ['Severity', <strong>{chat.severity}</strong>],
          ]}
          body={chat.blocks}
        />
      )}
    </section>
  );
}

/** A message shown as its named fields (ntfy's headers, PagerDuty's summary and severity) over its text. */
function FactsAndBody({ facts, body }: { facts: [string, ReactNode][]; body: string[] }) {
  return (
    <div className="chat-message">
      <dl className="facts">
        {facts.map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <p className="chat-text">{body.join('\n\n')}</p>
    </div>
  );
}

function MrkdwnText({ mrkdwn }: { mrkdwn: string }) {
  return (
    <p className="chat-text">
      {parseMrkdwn(mrkdwn).map((part, index) => (
        <MrkdwnRun key={index} part={part} />
      ))}
    </p>
  );
}

function MrkdwnRun({ part }: { part: MrkdwnPart }) {
  switch (part.kind) {
    case 'bold':
      return <strong>{part.text}</strong>;
    case 'italic':
      return <em>{part.text}</em>;
    case 'strike':
      return <s>{part.text}</s>;
    case 'code':
      return <code>{part.text}</code>;
    case 'link':
      return part.href ? (
        <a href={part.href} rel="noopener noreferrer" target="_blank">
          {part.text}
        </a>
      ) : (
        <>{part.text}</>
      );
    case 'text':
      return <>{part.text}</>;
  }
}

/** Whether a template's channel is a chat channel, whose preview shows the message as it does. */
export function isChatChannel(channel: string): channel is ChatChannel {
  return channel in CHANNEL_NAMES;
}
