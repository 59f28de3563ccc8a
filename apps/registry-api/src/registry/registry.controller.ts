import { Controller, Get, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { sendAnswer } from '../http/rendered-json';
import {
  EmissionReductionQuery,
  FuelUsageQuery,
  HouseholdStatsQuery,
  IssuedCreditsQuery,
  StoveStackingListQuery,
  StoveStackingQuery,
} from './dto/registry-queries';
import { RegistryAnswers } from './registry-answers.service';

// The aggregate operations of the original contract (the record resources' routes are in records.controller.ts).
@Controller()
export class RegistryController {
  constructor(private readonly answers: RegistryAnswers) {}

  @Get('households/stats')
  async householdStats(
    @Query() query: HouseholdStatsQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    return sendAnswer(reply, await this.answers.householdStats(query));
  }

  @Get('households/stove-stacking')
  async stoveStacking(
    @Query() query: StoveStackingQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    return sendAnswer(reply, await this.answers.stoveStacking(query));
  }

  @Get('households/stove-stacking/list')
  async stoveStackingList(
    @Query() query: StoveStackingListQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    return sendAnswer(reply, await this.answers.stoveStackingList(query));
  }

  // `/fuel/usage` is how part of the published documentation spells it; clients built from it exist.
  @Get(['fuel-usage', 'fuel/usage'])
  async fuelUsage(
    @Query() query: FuelUsageQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    return sendAnswer(reply, await this.answers.fuelUsage(query));
  }

  @Get('credits/issued')
  async issuedCredits(
    @Query() query: IssuedCreditsQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    return sendAnswer(reply, await this.answers.issuedCredits(query));
  }

  @Get('claims/emission-reduction')
  async emissionReductionClaims(
    @Query() query: EmissionReductionQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    return sendAnswer(reply, await this.answers.emissionReductionClaims(query));
  }
}
