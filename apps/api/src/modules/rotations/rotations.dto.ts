import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';
import { type Regression, ROTATION_FIELDS, type RotationField, type RotationValue } from '@certkeeper/domain';
import { ListWindowQueryDto } from '../../common/http/pagination';
import { CERT_USES, type CertUse } from '../links/endpoint-certificate.entity';

const REGRESSIONS = [...ROTATION_FIELDS, 'rollback'] as const;

const COMPARED_VALUE: ApiPropertyOptions = {
  // OpenAPI 3.0 has no null type: a null (chainComplete unknown) is the nullable string branch.
  oneOf: [
    { type: 'string', nullable: true },
    { type: 'integer', format: 'int32' },
    { type: 'boolean' },
    { type: 'array', items: { type: 'string' } },
  ],
  description: 'The value of the field: an array for trustedBy, sans and extendedKeyUsage; null when unknown.',
};

export class RotationsQueryDto extends ListWindowQueryDto {}

export class RotationChangeDto {
  @ApiProperty({ enum: ROTATION_FIELDS }) field!: RotationField;
  @ApiProperty(COMPARED_VALUE) from!: RotationValue;
  @ApiProperty(COMPARED_VALUE) to!: RotationValue;
}

export class RotationDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: CERT_USES }) certUse!: CertUse;
  @ApiProperty({ format: 'date-time', description: 'When the replacement was recorded.' }) at!: string;
  @ApiProperty({ description: 'The certificate that was current before.' }) fromFingerprint!: string;
  @ApiProperty({ description: 'The certificate current since.' }) toFingerprint!: string;
  @ApiProperty({ type: [RotationChangeDto], description: 'Every compared field that differs.' }) changes!: RotationChangeDto[];
  @ApiProperty({
    enum: REGRESSIONS,
    isArray: true,
    description: 'The changes that made things worse, and `rollback` when the new certificate was issued before the old one.',
  })
  regressions!: Regression[];
}
