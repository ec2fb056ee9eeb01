import { ApiProperty } from '@nestjs/swagger';

export class CalendarTokenResponseDto {
  @ApiProperty({ description: 'The new feed token. Shown once; only its hash is stored. Any previous token stops working.' })
  token!: string;

  @ApiProperty({
    format: 'uri',
    description: 'The absolute feed URL to subscribe to, from PUBLIC_URL when set, else from the request (protocol and Host).',
    example: 'https://certs.example.com/api/v1/calendar/u/QUV1t5SFxIBYY_8Wgk2Z6yNiB49ZuQJPhacnjkq7cts/certkeeper.ics',
  })
  url!: string;
}
