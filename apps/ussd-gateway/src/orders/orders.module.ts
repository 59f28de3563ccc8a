import { Module } from '@nestjs/common';
import { HouseholdsService } from './households.service';
import { OperatorRecordsRepository, OrdersRepository } from './orders.repository';

@Module({
  providers: [OrdersRepository, HouseholdsService, OperatorRecordsRepository],
  exports: [HouseholdsService, OperatorRecordsRepository],
})
export class OrdersModule {}
