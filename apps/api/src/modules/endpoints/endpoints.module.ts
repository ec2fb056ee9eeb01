import { Module } from '@nestjs/common';
import { FindingsModule } from '../findings/findings.module';
import { LinksModule } from '../links/links.module';
import { EndpointsController } from './endpoints.controller';
import { EndpointsRepository } from './endpoints.repository';
import { EndpointsService } from './endpoints.service';
import { TagsController } from './tags.controller';

@Module({
  imports: [FindingsModule, LinksModule],
  controllers: [EndpointsController, TagsController],
  providers: [EndpointsRepository, EndpointsService],
  exports: [EndpointsService],
})
export class EndpointsModule {}
