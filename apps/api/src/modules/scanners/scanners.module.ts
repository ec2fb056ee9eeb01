import { Module } from '@nestjs/common';
import { ScannersRepository } from './scanners.repository';
import { ScannersService } from './scanners.service';

@Module({
  providers: [ScannersRepository, ScannersService],
  exports: [ScannersService],
})
export class ScannersModule {}
