import { Module } from '@nestjs/common';
import { PipelineModule } from '../pipeline/pipeline.module';
import { RoutesModule } from '../routes/routes.module';
import { UpstreamModule } from '../upstream/upstream.module';
import { GatewayController } from './gateway.controller';
import { RootController } from './root.controller';

/** The HTTP face: the root description and the catch-all that hands every other path to the query pipeline. */
@Module({
  imports: [PipelineModule, RoutesModule, UpstreamModule],
  controllers: [RootController, GatewayController],
})
export class HttpModule {}
