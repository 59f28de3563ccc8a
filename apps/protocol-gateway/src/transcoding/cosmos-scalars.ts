import { CUSTOMTYPE_OPTION } from '@dmrv/proto';
import { Field, Namespace, Root, Type } from 'protobufjs';

/**
 * How a Cosmos SDK gogoproto customtype prints in a node's REST JSON, where it differs from the field's proto type:
 * - `legacy-dec`: LegacyDec (Dec before SDK 0.50) travels as its integer scaled by 10^18 ("1500000000000000000") and
 *   prints through its MarshalJSON as "1.500000000000000000": exactly 18 decimals, "-" for negatives;
 * - `integer`: Int and Uint travel as their decimal text and print it (a string field is printed as it is anyway; a
 *   bytes field prints the text, not base64).
 */
export type CosmosScalar = 'legacy-dec' | 'integer';

const BY_GO_TYPE: ReadonlyMap<string, CosmosScalar> = new Map([
  ['cosmossdk.io/math.LegacyDec', 'legacy-dec'],
  ['github.com/cosmos/cosmos-sdk/types.Dec', 'legacy-dec'],
  ['github.com/cosmos/cosmos-sdk/types.LegacyDec', 'legacy-dec'],
  ['cosmossdk.io/math.Int', 'integer'],
  ['cosmossdk.io/math.Uint', 'integer'],
  ['github.com/cosmos/cosmos-sdk/types.Int', 'integer'],
  ['github.com/cosmos/cosmos-sdk/types.Uint', 'integer'],
]);

export const LEGACY_DEC_PRECISION = 18;

/**
 * A customtype as gogoproto resolves it: a name without an import path (`Dec` in the SDK's own coin.proto) is a type of
 * the file's Go package (`go_package`, less any `;alias`).
 */
export function qualifiedGoType(customtype: string, goPackage: string | undefined): string {
  if (customtype.includes('/') || goPackage === undefined || goPackage === '') return customtype;
  return `${goPackage.split(';')[0]!}.${customtype}`;
}

export function cosmosScalarOf(goType: string | undefined): CosmosScalar | undefined {
  return goType === undefined ? undefined : BY_GO_TYPE.get(goType);
}

/** The `go_package` option of the package that declares `field` (a root parsed from .proto text keeps it there). */
function goPackageOf(field: Field): string | undefined {
  let scope: Namespace | null = field.parent;
  while (scope instanceof Type) scope = scope.parent;
  const value = scope?.options?.go_package as unknown;
  return typeof value === 'string' ? value : undefined;
}

/**
 * The Cosmos scalar a string or bytes field holds, from its `(gogoproto.customtype)` option; when the field carries
 * none (descriptors from a node whose reflection dropped the option), from the same message and field number in
 * `fallback` (the protos we are built with), if the field there has the same type.
 */
export function cosmosScalarOfField(field: Field, fallback?: Root): CosmosScalar | undefined {
  if (field.map || field.resolvedType !== null || (field.type !== 'string' && field.type !== 'bytes'))
    return undefined;
  const own = field.getOption(CUSTOMTYPE_OPTION) as unknown;
  if (typeof own === 'string') return cosmosScalarOf(qualifiedGoType(own, goPackageOf(field)));
  if (fallback === undefined || !(field.parent instanceof Type)) return undefined;
  let known: Type;
  try {
    known = fallback.lookupType(field.parent.fullName);
  } catch {
    return undefined;
  }
  const twin = known.fieldsById[field.id];
  if (twin === undefined || twin === field || twin.type !== field.type || twin.repeated !== field.repeated)
    return undefined;
  return cosmosScalarOfField(twin);
}

const INTEGER = /^[+-]?\d+$/;
const ZERO = `0.${'0'.repeat(LEGACY_DEC_PRECISION)}`;

/**
 * LegacyDec's JSON text of the scaled integer on the wire: "1500000000000000000" → "1.500000000000000000",
 * "-5" → "-0.000000000000000005". Nothing on the wire is the zero value ("0.000000000000000000"). Undefined when the
 * wire text is not an integer (the node's REST would fail to unmarshal it too).
 */
export function legacyDecText(wire: string): string | undefined {
  if (wire === '') return ZERO;
  if (!INTEGER.test(wire)) return undefined;
  const digits = wire.replace(/^[+-]/, '').replace(/^0+(?=\d)/, '');
  const negative = wire.startsWith('-') && digits !== '0';
  const padded = digits.padStart(LEGACY_DEC_PRECISION + 1, '0');
  const point = padded.length - LEGACY_DEC_PRECISION;
  return `${negative ? '-' : ''}${padded.slice(0, point)}.${padded.slice(point)}`;
}
