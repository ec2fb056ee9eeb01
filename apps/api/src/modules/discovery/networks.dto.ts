import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  DEFAULT_NETWORK_PORTS,
  MAX_NETWORK_ADDRESSES,
  MAX_NETWORK_PORTS,
  MAX_NETWORK_RANGE_ENTRIES,
  parseNetworkPorts,
  parseNetworkRanges,
} from '@certkeeper/domain/discovery';
import { IsBoolean, IsOptional, IsString, IsUUID, MaxLength, MinLength, ValidateBy } from 'class-validator';
import { IsCronExpression, IsNullable, IsOmittable } from '../../common/validation/decorators';
import { DEFAULT_NETWORK_SCAN_CRON } from './network.entity';

/** `ranges` as libs/domain reads them; every problem is one line of the 400 body. */
function IsNetworkRanges(): PropertyDecorator {
  return ValidateBy({
    name: 'isNetworkRanges',
    validator: {
      validate: (value: unknown) => parseNetworkRanges(value).ok,
      defaultMessage: (args) => problemsOf(parseNetworkRanges(args?.value)),
    },
  });
}

/** `ports` as libs/domain reads them; every problem is one line of the 400 body. */
function IsNetworkPorts(): PropertyDecorator {
  return ValidateBy({
    name: 'isNetworkPorts',
    validator: {
      validate: (value: unknown) => parseNetworkPorts(value).ok,
      defaultMessage: (args) => problemsOf(parseNetworkPorts(args?.value)),
    },
  });
}

/** Optional, but not nullable: an explicit null is a 400 rather than a NOT NULL violation. */

function problemsOf(checked: { ok: true } | { ok: false; problems: string[] }): string {
  return checked.ok ? '' : checked.problems.join('\n');
}

const RANGES_DESCRIPTION =
  `1 to ${MAX_NETWORK_RANGE_ENTRIES} entries, each an IPv4 or IPv6 address, a CIDR block (\`10.0.0.0/24\`, \`2001:db8::/120\`) ` +
  `or a dash range of one family (\`192.0.2.10-192.0.2.40\`); at most ${MAX_NETWORK_ADDRESSES} distinct addresses in all. ` +
  'Stored normalised: canonical addresses, host bits of a CIDR block cleared.';
const PORTS_DESCRIPTION = `1 to ${MAX_NETWORK_PORTS} unique TCP ports, 1 to 65535.`;
const SCANNER_DESCRIPTION = 'The scanner whose agent sweeps the network; null or omitted means the current default scanner.';

class NetworkSettingsDto {
  @ApiPropertyOptional({
    type: 'integer',
    isArray: true,
    minItems: 1,
    maxItems: MAX_NETWORK_PORTS,
    default: DEFAULT_NETWORK_PORTS,
    description: PORTS_DESCRIPTION,
  })
  @IsOmittable()
  @IsNetworkPorts()
  ports?: number[];

  @ApiPropertyOptional({ format: 'uuid', type: String, nullable: true, description: SCANNER_DESCRIPTION })
  @IsOptional()
  @IsNullable()
  @IsUUID('all', { message: 'scannerId must be a UUID or null' })
  scannerId?: string | null;

  @ApiPropertyOptional({
    default: DEFAULT_NETWORK_SCAN_CRON,
    description: 'When the scanner sweeps the network: a 5-field cron expression.',
  })
  @IsOmittable()
  @IsCronExpression()
  scanCronExpression?: string;

  @ApiPropertyOptional({ default: true, description: 'A disabled network is not swept on its schedule.' })
  @IsOmittable()
  @IsBoolean()
  enabled?: boolean;
}

/** POST and PUT: name and ranges are required; omitted settings take their defaults. */
export class NetworkInputDto extends NetworkSettingsDto {
  @ApiProperty({ minLength: 1, maxLength: 200, description: 'Unique among networks.' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  @ApiProperty({
    type: [String],
    minItems: 1,
    maxItems: MAX_NETWORK_RANGE_ENTRIES,
    description: RANGES_DESCRIPTION,
    example: ['192.0.2.0/24'],
  })
  @IsNetworkRanges()
  ranges!: string[];
}

/** PATCH: changes only what it names. */
export class PatchNetworkDto extends NetworkSettingsDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200, description: 'Unique among networks.' })
  @IsOmittable()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ type: [String], minItems: 1, maxItems: MAX_NETWORK_RANGE_ENTRIES, description: RANGES_DESCRIPTION })
  @IsOmittable()
  @IsNetworkRanges()
  ranges?: string[];
}

export class NetworkResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: [String], description: 'Normalised entries, in the order given.' }) ranges!: string[];
  @ApiProperty({ type: 'integer', isArray: true }) ports!: number[];
  @ApiProperty({
    format: 'uuid',
    type: String,
    nullable: true,
    description: 'Null after the assigned scanner was deleted: the network is not swept until a scanner is assigned.',
  })
  scannerId!: string | null;
  @ApiProperty() scanCronExpression!: string;
  @ApiProperty() enabled!: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiProperty({ format: 'date-time', type: String, nullable: true, description: 'When the last sweep finished; null until one has.' })
  lastSweepAt!: string | null;
}
