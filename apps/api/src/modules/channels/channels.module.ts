import { Module } from '@nestjs/common';
import { ChannelsController } from './channels.controller';
import { ChannelsRepository } from './channels.repository';
import { ChannelsService } from './channels.service';

@Module({
  controllers: [ChannelsController],
  providers: [ChannelsRepository, ChannelsService],
  exports: [ChannelsRepository, ChannelsService],
})
export class ChannelsModule {}
