import { Module } from '@nestjs/common';
import { FindingsModule } from '../findings/findings.module';
import { RenewalsModule } from '../renewals/renewals.module';
import { RevocationRepository } from './revocation.repository';
import { RevocationService } from './revocation.service';

/** Revocation (docs/api-contract.md section 18): the check-revocation task's work and each certificate's latest status. */
@Module({
  imports: [FindingsModule, RenewalsModule],
  providers: [RevocationRepository, RevocationService],
  exports: [RevocationRepository, RevocationService],
})
export class RevocationModule {}
