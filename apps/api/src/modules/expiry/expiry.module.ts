import { Module } from '@nestjs/common';
import { ExpiryRepository } from './expiry.repository';

/** What is about to expire, for whom: shared by the alert job and the calendar feed (and its scoping rule by the dashboard). */
@Module({ providers: [ExpiryRepository], exports: [ExpiryRepository] })
export class ExpiryModule {}
