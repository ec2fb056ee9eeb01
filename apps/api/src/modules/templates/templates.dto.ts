import { ApiProperty } from '@nestjs/swagger';
import { EVENT_TYPES, TEMPLATE_CHANNELS } from '@certkeeper/domain/templates';
import { IsString, MaxLength } from 'class-validator';

export class TemplateDto {
  @ApiProperty({ enum: EVENT_TYPES }) eventType!: string;
  @ApiProperty({ enum: TEMPLATE_CHANNELS }) channel!: string;
  @ApiProperty() subject!: string;
  @ApiProperty({
    description:
      'HTML with `{{ .Variable }}` placeholders, sent with a text alternative derived from it; a body without any markup ' +
      '(no tag, comment or character reference) is plain text and is sent as text/plain, line for line.',
  })
  body!: string;
  @ApiProperty({ description: 'false: the built-in default applies.' }) isCustom!: boolean;
  @ApiProperty({ type: [String], description: 'The variables this event type offers.' }) variables!: string[];
}

export class UpdateTemplateDto {
  @ApiProperty({ maxLength: 998 })
  @IsString()
  @MaxLength(998)
  subject!: string;

  @ApiProperty({ maxLength: 100000 })
  @IsString()
  @MaxLength(100_000)
  body!: string;
}

export class TemplatePreviewDto {
  @ApiProperty({ description: 'The subject line as sent: one line, values inserted.' }) subject!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The HTML part with the values inserted (HTML-escaped); null for a plain-text body, sent as text only.',
  })
  html!: string | null;
  @ApiProperty({ description: 'The text part: the plain-text body, or the text alternative derived from the HTML.' }) text!: string;
  @ApiProperty({
    type: () => ChatPreviewDto,
    nullable: true,
    description: 'How a chat channel shows the message (slack, teams, ntfy, pagerduty); null for e-mail.',
  })
  chat!: ChatPreviewDto | null;
}

/** One chat channel's message as it shows it, from the request the sender would post (docs/api-contract.md section 17). */
export class ChatPreviewDto {
  @ApiProperty({
    description:
      "slack: the message's mrkdwn text, values escaped; teams: the Adaptive Card's title; ntfy: the Title header; pagerduty: the summary.",
  })
  title!: string;
  @ApiProperty({
    type: [String],
    description:
      "slack: empty (the title holds the whole text); teams: the card's other TextBlocks; ntfy: the body; pagerduty: the message among the details.",
  })
  blocks!: string[];
  @ApiProperty({ type: 'integer', nullable: true, minimum: 3, maximum: 5, description: "ntfy's Priority; null for the others." })
  priority!: number | null;
  @ApiProperty({ type: [String], description: "ntfy's Tags (the first names an emoji); empty for the others." }) tags!: string[];
  @ApiProperty({ enum: ['critical', 'error', 'warning'], nullable: true, description: "PagerDuty's severity; null for the others." })
  severity!: 'critical' | 'error' | 'warning' | null;
}
