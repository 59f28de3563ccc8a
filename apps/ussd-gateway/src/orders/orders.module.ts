import { Module } from '@nestjs/common';
import { HouseholdsService } from './households.service';
import { OrdersRepository } from './orders.repository';

@Module({
  providers: [OrdersRepository, HouseholdsService],
  exports: [HouseholdsService, OrdersRepository],
})
export class OrdersModule {}
