import { createHash } from 'node:crypto';

/**
 * The Message-ID of one alert, the same for every attempt to deliver it: derived from (user,
 * certificate fingerprint, bucket), in the sender's domain. When a crash between the SMTP
 * server's acceptance and the delivery record's commit makes the next run send it again
 * (docs/api-contract.md section 6), mail systems that deduplicate by Message-ID see one message.
 */
export function alertMessageId(key: { userId: string; fingerprint: string; bucket: number }, fromAddress: string): string {
  const digest = createHash('sha256').update(`${key.userId}\n${key.fingerprint}\n${key.bucket}`).digest('hex').slice(0, 40);
  const at = fromAddress.lastIndexOf('@');
  const domain = at >= 0 && at < fromAddress.length - 1 ? fromAddress.slice(at + 1) : 'certkeeper.invalid';
  return `<alert.${digest}@${domain}>`;
}
