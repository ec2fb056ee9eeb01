import { Module } from '@nestjs/common';
import { ScannersController } from './scanners.controller';
import { ScannersRepository } from './scanners.repository';
import { ScannersService } from './scanners.service';

@Module({
  controllers: [ScannersController],
  providers: [ScannersRepository, ScannersService],
  exports: [ScannersService],
})
export class ScannersModule {}
