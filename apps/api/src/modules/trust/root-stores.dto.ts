import { ApiProperty } from '@nestjs/swagger';

export class RootStoreDto {
  @ApiProperty({ enum: ['mozilla', 'apple', 'microsoft', 'chrome'] }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: 'integer' }) anchorCount!: number;
  @ApiProperty({ format: 'date-time', type: String, nullable: true, description: 'null until the store was first filled.' }) updatedAt!:
    string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Where the anchors came from: a URL, `upload`, or `node:bundled`.' }) source!:
    string | null;
}

export class RootStoreImportResultDto {
  @ApiProperty({ type: 'integer', description: 'Anchors of the Mozilla store after the import.' }) mozilla!: number;
  @ApiProperty({ type: 'integer', description: 'Anchors of the Apple store after the import.' }) apple!: number;
  @ApiProperty({ type: 'integer', description: 'Anchors of the Microsoft store after the import.' }) microsoft!: number;
  @ApiProperty({ type: 'integer', description: 'Anchors of the Chrome store after the import.' }) chrome!: number;
  @ApiProperty({ type: 'integer', description: 'CSV rows skipped for lack of a SHA-256 fingerprint.' }) skippedRows!: number;
  @ApiProperty({ type: 'integer', description: 'Certificates the trust re-evaluation after the import went through.' }) evaluated!: number;
  @ApiProperty({
    type: 'integer',
    description: 'Verdicts that re-evaluation changed (a pass already under way when the anchors changed may have changed some first).',
  })
  changed!: number;
}
