import { LoadPlan } from '../harness/load';
import { Step } from '../harness/steps';
import { SERVICE_BUILDS, startService } from './services';
import { jsonDifference } from './same-json';
import { compare, Endpoint, SuiteContext } from './suite';

/** The path of the signing row: an aggregate, answered from the service's memory after the first request. */
const SIGNED_PATH = '/v1/households/stats';

export const SIGNING_WORKLOAD = `GET ${SIGNED_PATH} from memory, signed (floor: the same service, unsigned)`;

interface SigningDeployment {
  databaseUrl: string;
  authorization: string;
  households: number;
  /** The service as the suite runs it: signing with the run's key. */
  signed: Endpoint;
  env: Record<string, string>;
}

async function answerOf(
  endpoint: Endpoint,
  authorization: string,
): Promise<{ body: string; signed: boolean }> {
  const response = await fetch(new URL(SIGNED_PATH, endpoint.baseUrl), {
    headers: { authorization },
    signal: AbortSignal.timeout(30_000),
  });
  return {
    body: await response.text(),
    signed: response.headers.has('signature') && response.headers.has('content-digest'),
  };
}

/**
 * What signing costs: the same answer from memory, by the suite's service (signing, as production does) against a
 * second process of the same build on the same database with signing off. Both serve the cached aggregate, so the
 * difference is the digest, the signature (reused while the answer is unchanged) and the three headers.
 */
export async function measureSigning(ctx: SuiteContext, deployment: SigningDeployment): Promise<void> {
  const unsigned = await startService(ctx, 'registry-api-unsigned', SERVICE_BUILDS.registry.main, {
    ...deployment.env,
    SIGNING_KEY: '',
    SIGNING_DISABLED: 'true',
  });
  try {
    const steps: Step[] = [
      { method: 'GET', path: SIGNED_PATH, headers: { authorization: deployment.authorization } },
    ];
    const plan: LoadPlan = { steps, connections: ctx.options.connections };
    const row = await compare(ctx, {
      service: 'registry-api',
      workload: SIGNING_WORKLOAD,
      dataset: `${deployment.households.toLocaleString('en-US')} households`,
      floor: { ...unsigned, plan },
      target: { ...deployment.signed, plan },
    });
    const [floor, target] = await Promise.all([
      answerOf(unsigned, deployment.authorization),
      answerOf(deployment.signed, deployment.authorization),
    ]);
    if (!target.signed || floor.signed)
      row.problems.push('the signed side must carry Signature and Content-Digest, the unsigned side neither');
    const difference = jsonDifference(floor.body, target.body);
    if (difference !== undefined) row.problems.push(`signed and unsigned answer differently (${difference})`);
  } finally {
    await unsigned.process.stop();
  }
}
