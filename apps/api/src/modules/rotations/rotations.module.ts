import { Module } from '@nestjs/common';
import { RotationsController } from './rotations.controller';
import { RotationsRepository } from './rotations.repository';
import { RotationsService } from './rotations.service';

/** Rotations of endpoints' certificates (docs/api-contract.md section 16): recorded by the links' state machine, listed per endpoint. */
@Module({
  controllers: [RotationsController],
  providers: [RotationsRepository, RotationsService],
  exports: [RotationsService],
})
export class RotationsModule {}
