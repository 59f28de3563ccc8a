import {
  errorResponse,
  jsonContent as json,
  REGISTRY_PAGE_LIMIT_DEFAULT,
  REGISTRY_PAGE_LIMIT_MAX,
  REGISTRY_PARAMETER_MAX_LENGTH as MAX,
  schemaRef as ref,
} from '@dmrv/contracts';
import { PERIOD_PATTERN_SOURCE } from '../domain/period';
import {
  CREDITS_CANCELLED,
  CREDITS_RETIRED,
  CREDITS_TRANSFERRED,
  DEVICE_STATUS,
  EMISSION_REDUCTION_CLAIMS,
  FUEL_DELIVERIES,
  FUEL_PURCHASES,
  HOUSEHOLD_ONBOARDING,
  RecordResource,
} from '../registry/record-resources';

// The served OpenAPI document, written out rather than generated from decorators: the 12 original operations must
// keep their operationIds, paths, parameters and schemas byte for byte, and a generator would rename and reshape them.
// The record resources' operations and parameters come from their declarations (record-resources.ts); the aggregate
// operations' parameters are written here, and openapi-parameters.spec.ts ties every documented parameter to the
// query class of its route. Everything this service adds is marked `x-extension: true` and is optional.

type Json = Record<string, unknown>;

const EXT = { 'x-extension': true };

const ORIGINAL_SCHEMAS: Record<string, Json> = {
  HouseholdStats: {
    type: 'object',
    properties: {
      total_households: { type: 'integer', description: 'Total number of serviced households' },
      density: {
        type: 'object',
        description: 'Contains low, medium, high',
        properties: {
          low: { type: 'integer', description: 'Number of low-density households' },
          medium: { type: 'integer', description: 'Number of medium-density households' },
          high: { type: 'integer', description: 'Number of high-density households' },
        },
      },
    },
  },
  StoveStacking: {
    type: 'object',
    properties: {
      fuel_type: { type: 'string', description: 'Combination of fuel types used together' },
      percentage: {
        type: 'number',
        format: 'float',
        description: 'Percentage of households using this combination',
      },
    },
  },
  DeviceStatus: {
    type: 'object',
    properties: {
      device_id: { type: 'string', description: 'Unique identifier of the device' },
      status: { type: 'string', description: 'Current operational status of the device' },
      last_active: {
        type: 'string',
        format: 'date-time',
        description: 'Timestamp of last recorded activity',
      },
    },
  },
  FuelUsage: {
    type: 'object',
    properties: {
      household_id: { type: 'string', description: 'Unique identifier of the household' },
      fuel_consumed: { type: 'number', description: 'Total fuel consumed in the specified period' },
      region: { type: 'string', description: 'Geographic region of the household' },
    },
  },
  CreditsIssued: {
    type: 'object',
    properties: {
      project_id: { type: 'string', description: 'Unique identifier of the project' },
      time_period: { type: 'string', description: 'Period for which credits were issued' },
      credits: { type: 'integer', description: 'Number of credits issued' },
    },
  },
  CreditsCancelled: {
    type: 'object',
    properties: {
      credit_id: { type: 'string', description: 'Identifier of the invalidated credit' },
      cancellation_date: { type: 'string', format: 'date', description: 'Date of cancellation' },
    },
  },
  CreditsTransferred: {
    type: 'object',
    properties: {
      sender: { type: 'string', description: 'Entity transferring the credits' },
      recipient: { type: 'string', description: 'Entity receiving the credits' },
      amount: { type: 'integer', description: 'Number of credits transferred' },
      transfer_date: { type: 'string', format: 'date', description: 'Date of transfer' },
    },
  },
  CreditsRetired: {
    type: 'object',
    properties: {
      credit_id: { type: 'string', description: 'Identifier of the retired credit' },
      retirement_date: { type: 'string', format: 'date', description: 'Date of retirement' },
      emission_reductions: {
        type: 'integer',
        description: 'Emission reductions associated with the retired credit',
      },
    },
  },
  FuelPurchaseClaim: {
    type: 'object',
    properties: {
      fuel_id: { type: 'string', description: 'Identifier of the fuel purchase' },
      amount: { type: 'number', format: 'float', description: 'Amount of fuel purchased' },
      purchase_date: { type: 'string', format: 'date', description: 'Date of purchase' },
    },
  },
  FuelDeliveryClaim: {
    type: 'object',
    properties: {
      delivery_id: { type: 'string', description: 'Identifier of the delivery' },
      delivery_date: { type: 'string', format: 'date', description: 'Date of delivery' },
      delivered_quantity: { type: 'number', format: 'float', description: 'Quantity of fuel delivered' },
    },
  },
  EmissionReductionClaim: {
    type: 'object',
    properties: {
      project_id: { type: 'string', description: 'Identifier of the project' },
      period: { type: 'string', description: 'Period for which emissions were reduced' },
      reductions: { type: 'integer', description: 'Amount of emissions reduced' },
    },
  },
  HouseholdOnboardingClaim: {
    type: 'object',
    required: ['household_id', 'onboarding_date'],
    properties: {
      household_id: { type: 'string', description: 'Unique identifier of the household' },
      onboarding_date: { type: 'string', format: 'date', description: 'Date of onboarding' },
    },
  },
  Error: {
    type: 'object',
    properties: { message: { type: 'string', description: 'Text describing what went wrong' } },
  },
};

interface Operation {
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  schema: string;
  /** Semantics of this service, appended to the original description. */
  semantics: string;
  extensionParameters: Json[];
  /** The additive collection view, if the resource has one. */
  collection?: { path: string; operationId: string; parameters: Json[]; dated: boolean };
}

function queryParameter(name: string, description: string, schema: Json): Json {
  return { name, in: 'query', required: false, description, schema, ...EXT };
}

// Every string parameter says how long it may be (a longer one is 400 before anything else is done with it).
const ID_SCHEMA = { type: 'string', maxLength: MAX.identifier };
const TEXT_SCHEMA = { type: 'string', maxLength: MAX.text };
const PERIOD_SCHEMA = {
  type: 'string',
  pattern: PERIOD_PATTERN_SOURCE,
  maxLength: MAX.period,
  example: '2024-Q1',
};
const PERIOD_TEXT = 'YYYY-Q1…YYYY-Q4 (upstream format), or YYYY, or YYYY-MM';
const DATE_SCHEMA = { type: 'string', format: 'date', maxLength: MAX.date };
const projectParameter = queryParameter(
  'project_id',
  'Only records of this project (404 when no such project exists)',
  ID_SCHEMA,
);
const regionParameter = queryParameter(
  'region',
  'Only households of this region (404 when none)',
  TEXT_SCHEMA,
);
const timePeriodParameter = queryParameter(
  'time_period',
  `Only records dated within this period: ${PERIOD_TEXT}`,
  PERIOD_SCHEMA,
);
const RECORD_SEMANTICS =
  'Without selector, the most recent record (by its date, ties by the highest identifier). With selectors, the most ' +
  'recent record matching all of them; 404 when none matches.';

/** The parameters of a record resource's original path: its declared selectors, then the project and the period. */
function recordParameters(resource: RecordResource<unknown>): Json[] {
  const selectors = Object.entries(resource.selectors).map(([name, selector]) =>
    queryParameter(name, selector.description, selector.kind === 'identifier' ? ID_SCHEMA : TEXT_SCHEMA),
  );
  return [...selectors, projectParameter, timePeriodParameter];
}

function recordCollection(resource: RecordResource<unknown>): Operation['collection'] {
  return {
    path: `${resource.endpoint.path}/list`,
    operationId: resource.endpoint.listOperationId,
    parameters: recordParameters(resource),
    dated: true,
  };
}

/** A record resource's operations, as its declaration in record-resources.ts states them. */
function recordOperation(resource: RecordResource<unknown>): Operation {
  const { path, operationId, tag, summary, schema, semantics } = resource.endpoint;
  return {
    path,
    operationId,
    tag,
    summary,
    schema,
    semantics: `${RECORD_SEMANTICS} ${semantics}`.trim(),
    extensionParameters: recordParameters(resource),
    collection: recordCollection(resource),
  };
}

/** In the order of the original contract's endpoints table. */
const OPERATIONS: Operation[] = [
  {
    path: '/households/stats',
    operationId: 'getHouseholdStats',
    tag: 'Household Information',
    summary: 'Get household statistics',
    schema: 'HouseholdStats',
    semantics: 'Counts over all serviced households, optionally of one region and/or project.',
    extensionParameters: [projectParameter, regionParameter],
  },
  {
    path: '/households/stove-stacking',
    operationId: 'getStoveStackingData',
    tag: 'Household Information',
    summary: 'Get stove stacking data',
    schema: 'StoveStacking',
    semantics:
      'The most common fuel combination and the percentage (0–100, two decimals) of households with recorded fuels ' +
      'that use exactly it; or the combination named by fuel_type. Combinations list their fuels in the fixed order ' +
      'LPG, Electricity, Ethanol, Biogas, Kerosene, Charcoal, Biomass, joined by " + ".',
    extensionParameters: [
      queryParameter(
        'fuel_type',
        'A combination such as "LPG + Biomass" (any order and case; + or , between fuels)',
        {
          type: 'string',
          maxLength: MAX.fuelCombination,
        },
      ),
      projectParameter,
      regionParameter,
    ],
    collection: {
      path: '/households/stove-stacking/list',
      operationId: 'listStoveStackingData',
      parameters: [projectParameter, regionParameter],
      dated: false,
    },
  },
  recordOperation(DEVICE_STATUS),
  {
    path: '/fuel-usage',
    operationId: 'getFuelUsage',
    tag: 'Fuel Management',
    summary: 'Get fuel usage',
    schema: 'FuelUsage',
    semantics:
      'Sum of fuel consumed, in kilograms, over the selection (household_id, region, project_id) and the inclusive ' +
      'dates from/to. Fields that do not apply to the selection are omitted: household_id only with a household, ' +
      'region only with a household or a region. Also served at /fuel/usage (as part of the published docs spell it).',
    extensionParameters: [
      queryParameter('household_id', 'One household (404 when unknown)', ID_SCHEMA),
      queryParameter('region', 'One region (404 when no household is in it)', TEXT_SCHEMA),
      projectParameter,
      queryParameter('from', 'First day included', DATE_SCHEMA),
      queryParameter('to', 'Last day included', DATE_SCHEMA),
    ],
  },
  {
    path: '/credits/issued',
    operationId: 'getIssuedCredits',
    tag: 'Carbon Credits',
    summary: 'Get issued credits',
    schema: 'CreditsIssued',
    semantics: `Credits issued to the project with an issuance date in time_period (${PERIOD_TEXT}); 0 when none; 404 for an unknown project.`,
    extensionParameters: [],
  },
  recordOperation(CREDITS_CANCELLED),
  recordOperation(CREDITS_TRANSFERRED),
  recordOperation(CREDITS_RETIRED),
  recordOperation(FUEL_PURCHASES),
  recordOperation(FUEL_DELIVERIES),
  {
    path: '/claims/emission-reduction',
    operationId: 'getEmissionReductionClaims',
    tag: 'Claims Management',
    summary: 'Get emission reduction claims',
    schema: 'EmissionReductionClaim',
    semantics:
      'With project_id and period: reductions of the project in the period, in whole tCO2e rounded down, computed as ' +
      "fuel (t) × NCV (TJ/t) × (fNRB × EF_CO2 + EF_non-CO2) (tCO2e/TJ) with the project's parameters. Without a period: " +
      'the most recent quarterly claim (of the project, if given). A period without project_id is a 400.',
    extensionParameters: [
      projectParameter,
      queryParameter('period', PERIOD_TEXT, PERIOD_SCHEMA),
      queryParameter('time_period', 'Synonym of period (published examples send it)', PERIOD_SCHEMA),
    ],
    collection: recordCollection(EMISSION_REDUCTION_CLAIMS),
  },
  recordOperation(HOUSEHOLD_ONBOARDING),
];

/** Paths served besides an operation's own, documented as additive copies of it: path → [operationId, new id]. */
const ALIASES: Record<string, [string, string]> = {
  // Part of the published documentation spells it so; clients built from it exist.
  '/fuel/usage': ['getFuelUsage', 'getFuelUsageAtFuelPath'],
};

const EXTENSION_RESPONSES: Record<string, Json> = {
  '304': { description: 'Not modified: the If-None-Match tag still matches', ...EXT },
  '404': { ...errorResponse('A selector or filter names nothing that exists'), ...EXT },
  '429': {
    ...errorResponse(
      'The client exceeded its rate limit, or its address its failed authentications; see Retry-After',
    ),
    ...EXT,
  },
  '503': {
    ...errorResponse(
      'The database is unavailable, or too many authentications are in progress (then with Retry-After); retry later',
    ),
    ...EXT,
  },
};

const PAGING_PARAMETERS = [
  queryParameter(
    'limit',
    `Page size, default ${REGISTRY_PAGE_LIMIT_DEFAULT}, at most ${REGISTRY_PAGE_LIMIT_MAX} (above is a 400)`,
    {
      type: 'integer',
      minimum: 1,
      maximum: REGISTRY_PAGE_LIMIT_MAX,
      default: REGISTRY_PAGE_LIMIT_DEFAULT,
    },
  ),
  queryParameter('cursor', 'page_info.next_cursor of the previous page', {
    type: 'string',
    maxLength: MAX.cursor,
  }),
];

const DATED_PARAMETERS = [
  queryParameter('from', 'Records dated on or after this day', DATE_SCHEMA),
  queryParameter('to', 'Records dated on or before this day', DATE_SCHEMA),
  queryParameter('updated_since', 'Records created or changed at or after this instant', {
    type: 'string',
    format: 'date-time',
    maxLength: MAX.dateTime,
  }),
];

function pageSchema(item: string): Json {
  return {
    type: 'object',
    required: ['data', 'page_info', 'total_count'],
    properties: {
      data: { type: 'array', items: ref(item) },
      page_info: ref('PageInfo'),
      total_count: {
        type: 'integer',
        description:
          'Items matching the filters, over all pages, counted when the first page was read (later pages repeat that total)',
      },
    },
    ...EXT,
  };
}

const COLLECTION_TEXT =
  'Additive collection view (not in the original contract). Items have the original resource schema; the order is ' +
  'stable (record date ascending, then identifier; stove stacking by combination name) and paging is by cursor ' +
  '(keyset), so rows added while a client pages never cause duplicates or gaps among the rows that existed.';

export function buildOpenApiDocument(basePath: string): Json {
  const paths: Record<string, Json> = {};
  const schemas: Record<string, Json> = {
    ...ORIGINAL_SCHEMAS,
    PageInfo: {
      type: 'object',
      required: ['next_cursor', 'has_more', 'limit'],
      properties: {
        next_cursor: {
          type: 'string',
          nullable: true,
          description: 'Pass as cursor for the next page; null on the last page',
        },
        has_more: { type: 'boolean' },
        limit: { type: 'integer' },
      },
      ...EXT,
    },
  };
  for (const operation of OPERATIONS) {
    const original: Json = {
      tags: [operation.tag],
      summary: operation.summary,
      description: operation.semantics,
      operationId: operation.operationId,
      responses: {
        '200': { description: 'Successful response', content: json(ref(operation.schema)) },
        '400': errorResponse('Bad request'),
        '401': errorResponse('Unauthorized'),
        ...EXTENSION_RESPONSES,
      },
    };
    if (operation.operationId === 'getIssuedCredits') {
      original.parameters = [
        {
          name: 'project_id',
          in: 'query',
          required: true,
          description: 'Unique identifier of the project',
          schema: { type: 'string' },
          style: 'form',
        },
        {
          name: 'time_period',
          in: 'query',
          required: true,
          description: 'Period for which credits were issued',
          schema: { type: 'string' },
          style: 'form',
        },
      ];
    } else {
      original.parameters = operation.extensionParameters;
    }
    paths[operation.path] = { get: original };
    if (operation.collection) {
      const pageName = `${operation.schema}Page`;
      schemas[pageName] = pageSchema(operation.schema);
      const parameters = [
        ...operation.collection.parameters,
        ...PAGING_PARAMETERS,
        ...(operation.collection.dated ? DATED_PARAMETERS : []),
      ];
      paths[operation.collection.path] = {
        get: {
          tags: [operation.tag],
          summary: `List ${operation.summary.replace(/^Get /, '')}`,
          description: COLLECTION_TEXT,
          operationId: operation.collection.operationId,
          parameters,
          responses: {
            '200': { description: 'One page', content: json(ref(pageName)) },
            '400': errorResponse('Bad request (unknown parameter, limit above the maximum, bad cursor)'),
            '401': errorResponse('Unauthorized'),
            ...EXTENSION_RESPONSES,
          },
          ...EXT,
        },
      };
    }
  }
  for (const [alias, [operationId, aliasId]] of Object.entries(ALIASES)) {
    const original = OPERATIONS.find((operation) => operation.operationId === operationId)!;
    const get = (paths[original.path] as { get: Json }).get;
    paths[alias] = {
      get: {
        ...get,
        operationId: aliasId,
        description: `Same as GET ${original.path}. ${String(get.description)}`,
        ...EXT,
      },
    };
  }
  paths['/hello'] = {
    get: {
      tags: ['System Health'],
      summary: 'Liveness',
      operationId: 'getHello',
      security: [],
      responses: {
        '200': {
          description: 'The process serves HTTP',
          content: json({ type: 'object', properties: { message: { type: 'string' } } }),
        },
      },
    },
  };
  paths['/jwks.json'] = {
    get: {
      tags: ['System Health'],
      summary: 'Keys that sign the answers',
      description:
        'The Ed25519 public keys (RFC 8037) whose signatures (RFC 9421, `Signature-Input` tagged `dmrv-registry`) every ' +
        'answer carries: the current key, and keys that signed before a rotation with `exp`, the time each stopped ' +
        'signing. See docs/security.md, "Signed answers".',
      operationId: 'getSigningKeys',
      security: [],
      responses: {
        '200': {
          description: 'A JWKS (RFC 7517)',
          content: json({
            type: 'object',
            required: ['keys'],
            properties: {
              keys: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['kty', 'crv', 'x', 'kid'],
                  properties: {
                    kty: { type: 'string', enum: ['OKP'] },
                    crv: { type: 'string', enum: ['Ed25519'] },
                    x: { type: 'string', description: 'The public key, base64url' },
                    kid: { type: 'string', description: 'RFC 7638 thumbprint: the keyid of its signatures' },
                    use: { type: 'string', enum: ['sig'] },
                    exp: {
                      type: 'integer',
                      description:
                        'When the key stopped signing (seconds since the epoch); absent on the current key',
                    },
                  },
                },
              },
            },
          }),
        },
      },
      ...EXT,
    },
  };
  return {
    openapi: '3.0.3',
    info: {
      title: 'Emerging Platform API',
      version: '1.0.0',
      license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
      description:
        'Read-only household-energy registry data. Every 200 body of the original operations is one JSON object. ' +
        'Units: fuel in kilograms, emission reductions in tCO2e (one credit = one tonne). Dates are YYYY-MM-DD, ' +
        'date-times ISO 8601 UTC. Authenticate with HTTP Basic client_id:secret or Authorization: Bearer ' +
        '<client_id>.<secret>. Every 200 carries ETag and Cache-Control; If-None-Match answers 304. Elements marked ' +
        'x-extension are additive to the original 1.0.0 contract.',
    },
    servers: [{ url: basePath }],
    tags: [
      { name: 'Household Information', description: 'Households, their statistics and their records' },
      { name: 'Device Monitoring', description: 'Stoves and meters: status and usage events' },
      { name: 'Fuel Management', description: 'Fuel purchases and usage' },
      { name: 'Carbon Credits', description: 'Emission reductions and issued credits' },
      { name: 'Claims Management', description: 'Fuel purchase claims and their verification' },
      {
        name: 'System Health',
        description: 'GET /hello (liveness) and GET /api-docs (this document, rendered)',
      },
    ],
    security: [{ basicAuth: [] }, { bearerAuth: [] }],
    paths,
    components: {
      schemas,
      securitySchemes: {
        basicAuth: {
          type: 'http',
          scheme: 'basic',
          description: 'client_id as user name, secret as password',
        },
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: '<client_id>.<secret>',
          description:
            'Authorization: Bearer <client_id>.<secret>: the client id and the secret that `cli.js clients create` ' +
            'printed, joined by a dot (e.g. Bearer rc_0123456789abcdef.<43 characters>). A colon joins them only in ' +
            'HTTP Basic; a Bearer key in any other form is answered 401 with the expected form.',
        },
      },
    },
  };
}
