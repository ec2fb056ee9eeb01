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
}
