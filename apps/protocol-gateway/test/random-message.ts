import { Enum, Field, Root, Type } from 'protobufjs';
import { cosmosScalarOfField } from '../src/transcoding/cosmos-scalars';

type Plain = Record<string, unknown>;

/** mulberry32: a small seeded generator, so that a failing case can be reproduced from its seed. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  int(below: number): number {
    return Math.floor(this.next() * below);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** A decimal integer string of up to `digits` digits. */
  digits(digits: number): string {
    let out = String(1 + this.int(9));
    const length = this.int(digits);
    for (let i = 0; i < length; i += 1) out += String(this.int(10));
    return out;
  }
}

const INT64_EDGES = [
  '0',
  '1',
  '-1',
  '25',
  '9007199254740991', // 2^53 - 1: the largest value whose high word is below 2^21
  '9007199254740992', // 2^53: the first with high word 2^21
  '9007199254740993',
  '-9007199254740991',
  '-9007199254740992',
  '-9007199254740993',
  '4294967295',
  '4294967296',
  '-4294967296',
  '9223372036854775807',
  '-9223372036854775808',
];
const UINT64_EDGES = [
  '0',
  '1',
  '9007199254740991',
  '9007199254740992',
  '9223372036854775808',
  '18446744073709551615',
];
const DOUBLES = [
  0,
  -0,
  1,
  -1.5,
  0.1,
  -1234.5e-7,
  1e21,
  1e-7,
  123456789012345680000,
  5e-324,
  Number.MAX_VALUE,
  NaN,
  Infinity,
  -Infinity,
];
const STRINGS = [
  '',
  'did:ixo:entity:7690f6fdf246e0e548befdb27f53c6b8',
  'é∑ 😀',
  'quote " backslash \\ slash /',
  'control \u0000\u0001\u001f\n\r\t\b\f',
  'separators \u2028\u2029',
  '</script>',
  '\ud800 lone surrogate',
  '1',
  '@type',
];
const MAP_KEYS = [
  '',
  'a',
  'b_c',
  '0',
  '1',
  '2',
  '10',
  '01',
  '-1',
  '4294967295',
  '4294967296',
  'é',
  '@type',
  'z',
];

function randomString(random: Random): string {
  if (random.chance(0.6)) return random.pick(STRINGS);
  let out = '';
  const length = random.int(12);
  for (let i = 0; i < length; i += 1) {
    out += random.chance(0.7)
      ? String.fromCharCode(32 + random.int(95))
      : String.fromCharCode(random.int(0x10000));
  }
  return out;
}

function randomInt64(random: Random, signed: boolean): string {
  if (random.chance(0.5)) return random.pick(signed ? INT64_EDGES : UINT64_EDGES);
  const value = random.digits(signed ? 18 : 19);
  return signed && random.chance(0.4) ? `-${value}` : value;
}

function randomScalar(type: string, random: Random): unknown {
  switch (type) {
    case 'double':
      return random.chance(0.5) ? random.pick(DOUBLES) : (random.next() - 0.5) * 10 ** random.int(30);
    case 'float':
      return random.chance(0.5)
        ? random.pick(DOUBLES)
        : Math.fround((random.next() - 0.5) * 10 ** random.int(12));
    case 'int32':
    case 'sint32':
    case 'sfixed32':
      return random.pick([0, 1, -1, 2_147_483_647, -2_147_483_648, random.int(2 ** 31) - 2 ** 30]);
    case 'uint32':
    case 'fixed32':
      return random.pick([0, 1, 4_294_967_295, random.int(2 ** 32)]);
    case 'int64':
    case 'sint64':
    case 'sfixed64':
      return randomInt64(random, true);
    case 'uint64':
    case 'fixed64':
      return randomInt64(random, false);
    case 'bool':
      return random.chance(0.5);
    case 'string':
      return randomString(random);
    case 'bytes': {
      const bytes = Buffer.alloc(random.int(20));
      for (let i = 0; i < bytes.length; i += 1) bytes[i] = random.int(256);
      return bytes;
    }
    default:
      throw new Error(`no generator for ${type}`);
  }
}

function randomEnum(type: Enum, random: Random): unknown {
  // Numbers the descriptor does not name come from newer nodes; they print as numbers.
  if (random.chance(0.15)) return random.pick([7, 99, -3]);
  return random.pick(Object.values(type.values));
}

function randomMapKey(keyType: string, random: Random): string {
  switch (keyType) {
    case 'string':
      return random.chance(0.7) ? random.pick(MAP_KEYS) : randomString(random);
    case 'bool':
      return String(random.chance(0.5));
    case 'int64':
    case 'sint64':
    case 'sfixed64':
    case 'uint64':
    case 'fixed64':
      return randomInt64(random, !keyType.startsWith('u') && !keyType.startsWith('f'));
    default:
      return String(randomScalar(keyType, random));
  }
}

/**
 * A random message of `type` as a plain object for protobufjs' `fromObject`: edge values of every scalar, unknown
 * enum numbers, maps with integer-like keys, oneofs set or not, and every well-known type with valid contents.
 */
export function randomMessage(root: Root, type: Type, random: Random, depth = 0): Plain {
  const nested = (name: string): Plain => randomMessage(root, root.lookupType(name), random, depth + 1);
  switch (type.fullName) {
    case '.google.protobuf.Timestamp': {
      // Now and then outside years 1–9999, which both printers refuse.
      if (random.chance(0.01)) return { seconds: random.pick(['253402300800', '-62135596801']), nanos: 0 };
      const seconds = random.pick([
        0,
        -62_135_596_800,
        253_402_300_799,
        1_700_000_000,
        random.int(253_402_300_800),
        -random.int(62_135_596_801),
      ]);
      const nanos = random.pick([0, 5_000_000, 120_000, 1, 999_999_999, random.int(1_000_000_000)]);
      return { seconds, nanos };
    }
    case '.google.protobuf.Duration': {
      const negative = random.chance(0.3);
      const seconds = random.pick(['0', '86400', '1', random.digits(12), '315576000000']);
      const nanos = random.pick([0, 500_000_000, 1, 1000, random.int(1_000_000_000)]);
      return { seconds: negative ? `-${seconds}` : seconds, nanos: negative ? -nanos : nanos };
    }
    case '.google.protobuf.Any': {
      const inner =
        depth > 3
          ? 'google.protobuf.Empty'
          : random.pick([
              'dmrv.fixture.Inner',
              'dmrv.fixture.Inner',
              'google.protobuf.Struct',
              'google.protobuf.Timestamp',
              'google.protobuf.Duration',
              'google.protobuf.Empty',
              'google.protobuf.Value',
              'google.protobuf.ListValue',
              'google.protobuf.Int64Value',
              'google.protobuf.Any',
              'dmrv.fixture.Tree',
            ]);
      const innerType = root.lookupType(inner);
      const value = innerType.encode(innerType.fromObject(nested(inner))).finish();
      return { type_url: `${random.pick(['type.googleapis.com/', '/'])}${inner}`, value };
    }
    case '.google.protobuf.Struct': {
      const fields: Plain = {};
      const count = depth > 3 ? 0 : random.int(5);
      for (let i = 0; i < count; i += 1)
        fields[randomMapKey('string', random)] = nested('google.protobuf.Value');
      return { fields };
    }
    case '.google.protobuf.ListValue': {
      const count = depth > 3 ? 0 : random.int(4);
      return { values: Array.from({ length: count }, () => nested('google.protobuf.Value')) };
    }
    case '.google.protobuf.Value': {
      const kinds = depth > 3 ? 4 : 6;
      switch (random.int(kinds)) {
        case 0:
          return { null_value: 0 };
        case 1:
          return { number_value: randomScalar('double', random) };
        case 2:
          return { string_value: randomString(random) };
        case 3:
          return { bool_value: random.chance(0.5) };
        case 4:
          return { struct_value: nested('google.protobuf.Struct') };
        default:
          return { list_value: nested('google.protobuf.ListValue') };
      }
    }
    case '.google.protobuf.FieldMask':
      return { paths: random.pick([[], ['a_b'], ['entity.start_date', 'id', 'x_1_y']]) };
    default:
      break;
  }
  const out: Plain = {};
  const oneofsSet = new Set<string>();
  for (const field of type.fieldsArray) {
    if (random.chance(0.25)) continue; // left unset: defaults (and null for messages) print
    if (field.partOf) {
      if (oneofsSet.has(field.partOf.name)) continue;
      oneofsSet.add(field.partOf.name);
    }
    out[field.name] = randomField(root, field, random, depth);
  }
  return out;
}

/** A LegacyDec as the wire carries it: its value scaled by 10^18, in digits. */
function randomLegacyDec(random: Random): string {
  const digits = random.pick(['0', '1', '5', '1000000000000000000', random.digits(18), random.digits(40)]);
  return random.chance(0.2) && digits !== '0' ? `-${digits}` : digits;
}

function randomValue(root: Root, field: Field, random: Random, depth: number): unknown {
  if (cosmosScalarOfField(field) === 'legacy-dec') {
    const wire = randomLegacyDec(random);
    return field.type === 'bytes' ? Buffer.from(wire) : wire;
  }
  const resolved = field.resolvedType;
  if (resolved instanceof Enum) return randomEnum(resolved, random);
  if (resolved instanceof Type) {
    if (depth > 4) return undefined;
    return randomMessage(root, resolved, random, depth + 1);
  }
  return randomScalar(field.type, random);
}

function randomField(root: Root, field: Field, random: Random, depth: number): unknown {
  const count = random.int(depth > 2 ? 2 : 5);
  if (field.map) {
    const keyType = (field as Field & { keyType: string }).keyType;
    const entries: Plain = {};
    for (let i = 0; i < count; i += 1) {
      const value = randomValue(root, field, random, depth);
      if (value !== undefined) entries[randomMapKey(keyType, random)] = value;
    }
    return entries;
  }
  if (field.repeated) {
    return Array.from({ length: count }, () => randomValue(root, field, random, depth)).filter(
      (value) => value !== undefined,
    );
  }
  return randomValue(root, field, random, depth);
}
