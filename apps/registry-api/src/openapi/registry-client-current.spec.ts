import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderClient } from './client-codegen';
import { buildOpenApiDocument } from '../registry-openapi';

const GENERATED = join(__dirname, '../../../../libs/registry-client/src/generated.ts');

describe('@dmrv/registry-client', () => {
  it('is generated from the current OpenAPI document (regenerate: node scripts/generate-registry-client.mjs)', async () => {
    expect(readFileSync(GENERATED, 'utf8')).toBe(renderClient(await buildOpenApiDocument('/v1')));
  });

  it('has a method, a query type and a path for every operation, and pages every /list collection', async () => {
    const client = renderClient(await buildOpenApiDocument('/v1'));
    expect(client).toContain('  getIssuedCredits(query: GetIssuedCreditsQuery): Promise<CreditsIssued> {');
    expect(client).toContain('  getDeviceStatus(query?: GetDeviceStatusQuery): Promise<DeviceStatus> {');
    expect(client).toContain('  getFuelUsageAtFuelPath: "/fuel/usage",');
    expect(client).toContain(
      'export type ListOperationId = "listStoveStackingData" | "listDeviceStatus" | "listCancelledCredits" | "listTransferredCredits" | ' +
        '"listRetiredCredits" | "listFuelPurchaseClaims" | "listFuelDeliveryClaims" | "listEmissionReductionClaims" | "listHouseholdOnboardingClaims";',
    );
  });
});
