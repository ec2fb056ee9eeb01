import type { ChannelDeliveryEntity } from './channel-delivery.entity';
import type { ChannelDeliveryDto, ChannelResponseDto, ChannelWithSecretDto } from './channels.dto';
import type { ChannelWithSecret } from './channels.service';
import type { NotificationChannelEntity } from './notification-channel.entity';

/** Never the URL or the secret: their host and whether one is set. */
export function toChannelResponse(channel: NotificationChannelEntity): ChannelResponseDto {
  return {
    id: channel.id,
    name: channel.name,
    kind: channel.kind,
    enabled: channel.enabled,
    urlHost: channel.urlHost,
    secretSet: channel.sealedSecret !== null,
    tags: channel.tags,
    events: channel.events,
    mode: channel.mode,
    digestHour: channel.digestHour,
    createdAt: channel.createdAt.toISOString(),
    updatedAt: channel.updatedAt.toISOString(),
    lastDeliveryAt: channel.lastDeliveryAt?.toISOString() ?? null,
    lastError: channel.lastError,
  };
}

export function toChannelWithSecret({ channel, secret }: ChannelWithSecret): ChannelWithSecretDto {
  return { ...toChannelResponse(channel), ...(secret === undefined ? {} : { secret }) };
}

export function toChannelDelivery(row: ChannelDeliveryEntity): ChannelDeliveryDto {
  return {
    id: row.id,
    at: row.at.toISOString(),
    eventType: row.eventType,
    fingerprint: row.fingerprint,
    threshold: row.threshold,
    status: row.status,
    httpStatus: row.httpStatus,
    error: row.error,
  };
}
