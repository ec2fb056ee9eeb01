import { BadRequestException, Injectable, type PipeTransform } from '@nestjs/common';
import { parseFingerprint } from '@certkeeper/domain';

/** A SHA-256 fingerprint path parameter in any accepted form, as 64 lower-case hex. */
@Injectable()
export class ParseFingerprintPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    const fingerprint = parseFingerprint(value);
    if (fingerprint?.algorithm !== 'sha256')
      throw new BadRequestException('fingerprint must be a SHA-256 fingerprint: 64 hexadecimal digits, colons allowed');
    return fingerprint.hex;
  }
}
