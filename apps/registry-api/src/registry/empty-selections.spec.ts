import { InvalidInputError, NotFoundError } from '@dmrv/errors';
import { buildOpenApiDocument } from '../registry-openapi';
import { EmptySelections, zeroBodies } from './empty-selections';

let zeros: Map<string, unknown>;

beforeAll(async () => {
  zeros = zeroBodies(await buildOpenApiDocument('/v1'));
});

describe('zero values of the 200 schemas', () => {
  it.each([
    ['getHouseholdStats', { total_households: 0, density: { low: 0, medium: 0, high: 0 } }],
    ['getStoveStackingData', { fuel_type: '', percentage: 0 }],
    ['getDeviceStatus', { device_id: '', status: '', last_active: '0001-01-01T00:00:00.000Z' }],
    ['getFuelUsage', { household_id: '', fuel_consumed: 0, region: '' }],
    ['getFuelUsageAtFuelPath', { household_id: '', fuel_consumed: 0, region: '' }],
    ['getIssuedCredits', { project_id: '', time_period: '', credits: 0 }],
    ['getCancelledCredits', { credit_id: '', cancellation_date: '0001-01-01' }],
    ['getTransferredCredits', { sender: '', recipient: '', amount: 0, transfer_date: '0001-01-01' }],
    ['getRetiredCredits', { credit_id: '', retirement_date: '0001-01-01', emission_reductions: 0 }],
    ['getFuelPurchaseClaims', { fuel_id: '', amount: 0, purchase_date: '0001-01-01' }],
    ['getFuelDeliveryClaims', { delivery_id: '', delivery_date: '0001-01-01', delivered_quantity: 0 }],
    ['getEmissionReductionClaims', { project_id: '', period: '', reductions: 0 }],
    ['getHouseholdOnboardingClaims', { household_id: '', onboarding_date: '0001-01-01' }],
    [
      'listDeviceStatus',
      { data: [], page_info: { next_cursor: null, has_more: false, limit: 0 }, total_count: 0 },
    ],
  ])('%s (as the README lists it)', (operationId, zero) => {
    expect(zeros.get(operationId)).toEqual(zero);
  });
});

describe('EmptySelections', () => {
  const notFound = () => Promise.reject(new NotFoundError('No project p'));

  it('passes everything through in 404 mode', async () => {
    await expect(
      new EmptySelections('404').useZeros(zeros).answer('getHouseholdStats', notFound),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it('turns a 404 into the zero value in zero mode, pages with the limit asked for, and leaves answers and other errors alone', async () => {
    const empty = new EmptySelections('zero').useZeros(zeros);
    await expect(empty.answer('getCancelledCredits', notFound)).resolves.toEqual({
      credit_id: '',
      cancellation_date: '0001-01-01',
    });
    await expect(empty.answer('listStoveStackingData', notFound, 7)).resolves.toMatchObject({
      page_info: { limit: 7 },
    });
    await expect(empty.answer('listStoveStackingData', notFound)).resolves.toMatchObject({
      page_info: { limit: 50 },
    });
    await expect(empty.answer('getHouseholdStats', () => Promise.resolve('{"rendered":true}'))).resolves.toBe(
      '{"rendered":true}',
    );
    const refused = new InvalidInputError('time_period is required');
    await expect(empty.answer('getIssuedCredits', () => Promise.reject(refused))).rejects.toBe(refused);
  });

  it('hands out a fresh zero each time (a caller cannot change the next one)', async () => {
    const empty = new EmptySelections('zero').useZeros(zeros);
    const first = (await empty.answer('getHouseholdStats', notFound)) as { density: { low: number } };
    first.density.low = 9;
    await expect(empty.answer('getHouseholdStats', notFound)).resolves.toEqual({
      total_households: 0,
      density: { low: 0, medium: 0, high: 0 },
    });
  });
});
