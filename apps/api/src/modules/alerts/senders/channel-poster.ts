import { Inject, Injectable } from '@nestjs/common';
import { boundedFetch, type BoundedFetchFailure, type KeptConnections, type OutboundGuard } from '@certkeeper/net';
import { Clock } from '../../../common/clock';
import { outboundGuardFor } from '../../../common/net/outbound-guard';
import { USER_AGENT } from '../../../common/version';
import { APP_CONFIG, type AppConfig } from '../../../config/app-config';
import type { ChannelDeliveryStatus } from '../../channels/channel-delivery.entity';
import { ChannelsRepository, type DeliveryAttempt } from '../../channels/channels.repository';
import type { OpenChannel } from '../../channels/channels.service';
import type { DeliveryFailure, DeliveryOutcome } from './notification-sender';

/** docs/api-contract.md section 17: each request's deadline and the most of an answer read. */
export const CHANNEL_DEADLINE_MS = 10_000;
export const CHANNEL_ANSWER_MAX_BYTES = 64 * 1024;

/** One request to a channel: its body, media type and the kind's own headers (signatures, ntfy's Title). */
export interface ChannelMessage {
  body: string;
  contentType: string;
  headers?: Record<string, string>;
}

/** What the channel's log says the request was about: an event, `test` or `digest`. */
export interface AttemptSubject {
  eventType: string;
  fingerprint: string | null;
  threshold: number | null;
  /** The status a 2xx logs: `delivered`, or `resolved` for a PagerDuty resolve. */
  onSuccess: Exclude<ChannelDeliveryStatus, 'failed'>;
}

export type PostOutcome = DeliveryOutcome & { httpStatus: number | null };

/**
 * Posts to notification channels through libs/net (docs/api-contract.md section 17): OUTBOUND_DENY
 * checked after resolution, a 10-second deadline, no redirect followed (a 3xx is a failure), at
 * most 64 KiB of answer read. Every attempt goes into the channel's log. A failure is said in our
 * words with the HTTP status at most: never the URL (its path is a credential for Slack, Teams
 * and ntfy), the secret, or the receiver's text.
 */
@Injectable()
export class ChannelPoster {
  private readonly guard: OutboundGuard;

  constructor(
    private readonly channels: ChannelsRepository,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.guard = outboundGuardFor(config);
  }

  /**
   * `inClaim`: the caller claims the delivery (AlertsRepository.claimOnce), which then commits a
   * delivered attempt's log row with its claim; a failed attempt is logged at once either way.
   * `connections`: the channel's kept connections for a run of requests to it; without them, a
   * connection of its own.
   */
  async post(
    channel: OpenChannel,
    message: ChannelMessage,
    subject: AttemptSubject,
    signal: AbortSignal,
    { inClaim = false, connections }: { inClaim?: boolean; connections?: KeptConnections } = {},
  ): Promise<PostOutcome> {
    signal.throwIfAborted();
    const result = await boundedFetch(channel.url, {
      method: 'POST',
      body: message.body,
      headers: { ...message.headers, 'content-type': message.contentType, 'user-agent': USER_AGENT },
      timeoutMs: CHANNEL_DEADLINE_MS,
      maxBytes: CHANNEL_ANSWER_MAX_BYTES,
      maxRedirects: 0,
      guard: this.guard,
      signal,
      connections,
    });
    const outcome: PostOutcome = result.ok
      ? { status: 'delivered', httpStatus: result.status }
      : { status: 'failed', failure: channelFailure(result.failure), httpStatus: answeredStatus(result.failure) };
    const attempt: DeliveryAttempt = {
      at: this.clock.now(),
      eventType: subject.eventType,
      fingerprint: subject.fingerprint,
      threshold: subject.threshold,
      status: outcome.status === 'delivered' ? subject.onSuccess : 'failed',
      httpStatus: outcome.httpStatus,
      error: outcome.status === 'failed' ? outcome.failure.description : null,
    };
    if (inClaim && outcome.status === 'delivered') {
      return { ...outcome, record: this.channels.attemptRecord(channel.id, attempt) };
    }
    await this.channels.recordAttempt(channel.id, attempt);
    return outcome;
  }
}

function answeredStatus(failure: BoundedFetchFailure): number | null {
  return failure.kind === 'http-status' || failure.kind === 'too-many-redirects' ? failure.status : null;
}

const TLS_CODE = /^(?:ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_(?:GET|VERIFY)_|HOSTNAME_MISMATCH)/;

/** A failed request in the failure classes of the alert run's result, described without the URL or the receiver's words. */
export function channelFailure(failure: BoundedFetchFailure): DeliveryFailure {
  const failed = (reason: DeliveryFailure['reason'], description: string, replyCode: number | null = null): DeliveryFailure => ({
    reason,
    replyCode,
    description,
  });
  switch (failure.kind) {
    case 'http-status':
      return failed('rejected', `the receiver answered HTTP ${failure.status}`, failure.status);
    case 'too-many-redirects':
      return failed('rejected', `the receiver answered HTTP ${failure.status}, a redirect, which is not followed`, failure.status);
    case 'timeout':
    case 'connect-timeout':
      return failed('timeout', `no answer within ${CHANNEL_DEADLINE_MS / 1000} seconds`);
    case 'refused':
      // The guard's sentence names the host and the denied range, never the path.
      return failed('outbound-denied', failure.message);
    case 'network':
      return networkFailure(failure.code);
    case 'cut-short':
      return failed('connection-lost', 'the connection closed before the whole answer arrived');
    case 'too-large':
      return failed('other', `the answer was larger than ${CHANNEL_ANSWER_MAX_BYTES / 1024} KiB`);
    case 'content-encoding':
      return failed('other', 'the answer was compressed although none was asked for');
    case 'cancelled':
      return failed('other', 'the request was cancelled');
    // Neither happens to a POST that follows no redirect and reads no file; said plainly should one ever.
    case 'invalid-url':
    case 'unsupported-protocol':
    case 'redirect-without-location':
    case 'redirect-invalid':
    case 'redirect-protocol':
    case 'redirect-downgrade':
    case 'file-missing':
    case 'file-unreadable':
    case 'not-a-file':
      return failed('other', 'the stored URL cannot be requested');
  }
}

function networkFailure(code: string | null): DeliveryFailure {
  const failed = (reason: DeliveryFailure['reason'], description: string): DeliveryFailure => ({ reason, replyCode: null, description });
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return failed('dns', `the receiver's name does not resolve (${code})`);
  if (code === 'ECONNREFUSED') return failed('refused', 'the receiver refused the connection (ECONNREFUSED)');
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return failed('unreachable', `the receiver cannot be reached (${code})`);
  if (code !== null && TLS_CODE.test(code)) return failed('tls', `the TLS handshake failed (${code})`);
  if (code === 'ECONNRESET' || code === 'EPIPE') return failed('connection-lost', `the connection was lost (${code})`);
  return failed('other', `the request failed${code ? ` (${code})` : ''}`);
}
