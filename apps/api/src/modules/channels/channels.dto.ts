import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CHANNEL_KINDS, type ChannelKind, EVENT_TYPES, type EventType } from '@certkeeper/domain';
import { ArrayMinSize, ArrayUnique, IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { IsHttpUrl, IsNullable, IsOmittable, IsTagList } from '../../common/validation/decorators';
import { CHANNEL_DELIVERY_STATUSES, type ChannelDeliveryStatus } from './channel-delivery.entity';
import { CHANNEL_MODES, type ChannelMode, DEFAULT_DIGEST_HOUR } from './notification-channel.entity';

const URL_DESCRIPTION =
  'Where the channel posts: the webhook receiver, the Slack or Teams incoming-webhook URL, the ntfy topic URL, or the PagerDuty ' +
  'Events API (default `https://events.pagerduty.com/v2/enqueue`). Write-only: reads show `urlHost`. Omitted on PUT and PATCH ' +
  'keeps the stored one; changing it while a secret is stored needs `secret` again.';
const SECRET_DESCRIPTION =
  'Write-only. webhook: the signing secret, `whsec_` and the base64 of 24 to 64 bytes (generated when omitted on create); ' +
  'ntfy: the access token, optional; pagerduty: the routing key, required; slack and teams take none. ' +
  'Omitted or null on PUT and PATCH keeps the stored one; `""` clears an ntfy token.';

/** Fields every write may carry; POST and PUT add what they require. */
class ChannelSettingsDto {
  @ApiPropertyOptional({ default: true }) @IsOmittable() @IsBoolean() enabled?: boolean;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 1000, description: SECRET_DESCRIPTION, writeOnly: true })
  @IsOptional()
  @IsNullable()
  @IsString()
  @MaxLength(1000)
  secret?: string | null;

  @ApiPropertyOptional({ type: [String], description: 'Empty (the default): every endpoint; otherwise endpoints sharing one of them.' })
  @IsOmittable()
  @IsTagList()
  tags?: string[];

  @ApiPropertyOptional({
    enum: EVENT_TYPES,
    isArray: true,
    minItems: 1,
    description: 'The event types the channel hears, a non-empty subset; default every one.',
  })
  @IsOmittable()
  @ArrayMinSize(1, { message: 'events must name at least one event type' })
  @ArrayUnique({ message: 'events must not repeat an event type' })
  @IsIn(EVENT_TYPES, { each: true, message: `each of events must be one of ${EVENT_TYPES.join(', ')}` })
  events?: EventType[];

  @ApiPropertyOptional({
    enum: CHANNEL_MODES,
    default: 'immediate',
    description: '`daily` gathers what fell due into one message at `digestHour` (slack, teams and ntfy only).',
  })
  @IsOmittable()
  @IsIn(CHANNEL_MODES, { message: `mode must be one of ${CHANNEL_MODES.join(', ')}` })
  mode?: ChannelMode;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 23,
    default: DEFAULT_DIGEST_HOUR,
    description: 'UTC hour of the daily digest.',
  })
  @IsOmittable()
  @IsInt()
  @Min(0)
  @Max(23)
  digestHour?: number;

  @ApiPropertyOptional({ maxLength: 2048, description: URL_DESCRIPTION, writeOnly: true })
  @IsOmittable()
  @IsHttpUrl()
  url?: string;
}

/** POST and PUT: name and kind are required (a PUT cannot change the kind); omitted settings take their defaults. */
export class ChannelInputDto extends ChannelSettingsDto {
  @ApiProperty({ minLength: 1, maxLength: 200, description: 'Unique among channels.' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  @ApiProperty({ enum: CHANNEL_KINDS })
  @IsIn(CHANNEL_KINDS, { message: `kind must be one of ${CHANNEL_KINDS.join(', ')}` })
  kind!: ChannelKind;
}

/** PATCH: changes only what it names; the kind cannot change. */
export class PatchChannelDto extends ChannelSettingsDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200, description: 'Unique among channels.' })
  @IsOmittable()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ enum: CHANNEL_KINDS, description: 'Only the kind the channel has: a channel never changes kind.' })
  @IsOmittable()
  @IsIn(CHANNEL_KINDS, { message: `kind must be one of ${CHANNEL_KINDS.join(', ')}` })
  kind?: ChannelKind;
}

export class ChannelResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: CHANNEL_KINDS }) kind!: ChannelKind;
  @ApiProperty() enabled!: boolean;
  @ApiProperty({ description: 'The host (and port) of the stored URL; the URL itself is never shown.' }) urlHost!: string;
  @ApiProperty({ description: 'Whether a secret (signing secret, token or routing key) is stored.' }) secretSet!: boolean;
  @ApiProperty({ type: [String] }) tags!: string[];
  @ApiProperty({ enum: EVENT_TYPES, isArray: true }) events!: EventType[];
  @ApiProperty({ enum: CHANNEL_MODES }) mode!: ChannelMode;
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 23 }) digestHour!: number;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiProperty({ format: 'date-time', type: String, nullable: true }) lastDeliveryAt!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "The last attempt's failure in Certkeeper's words (never the receiver's text); null once one succeeded.",
  })
  lastError!: string | null;
}

/** The create and rotate-secret answers: the channel, and the webhook secret it was given, shown this once. */
export class ChannelWithSecretDto extends ChannelResponseDto {
  @ApiPropertyOptional({
    description: 'The generated webhook signing secret, answered only here: store it in the receiver now. Absent when the caller chose it.',
  })
  secret?: string;
}

export class ChannelDeliveryDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'date-time' }) at!: string;
  @ApiProperty({ description: 'The event type, `test` for a test message, `digest` for a daily message.' }) eventType!: string;
  @ApiProperty({ type: String, nullable: true, description: 'Null for a test or a digest.' }) fingerprint!: string | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The bucket; null for a test or a digest.' }) threshold!: number | null;
  @ApiProperty({ enum: CHANNEL_DELIVERY_STATUSES }) status!: ChannelDeliveryStatus;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The HTTP status the receiver answered; null when it did not answer.' })
  httpStatus!: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'Why it failed, in our words; null when delivered.' }) error!: string | null;
}
