import { Type } from 'protobufjs';

/** A field number the descriptor of `message` does not declare, found in an answer's bytes. */
export interface UnknownField {
  /** `ixo.entity.v1beta1.Entity`, without protobufjs' leading dot. */
  message: string;
  field: number;
}

/** What to do with one field number of a message: skip it, descend into it (a message), or report it. */
interface Plan {
  message: string;
  /** By field number: `null` for a known field that needs no descent, a plan for a message field. */
  fields: Map<number, Plan | null>;
}

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

/**
 * Finds the fields of a protobuf answer that its descriptor does not declare (a node newer than our .proto files),
 * which protobufjs skips without a trace when it decodes. A walk over the wire format that reads tags and lengths
 * only, descending into message fields; well-known types and the bytes of an Any are not descended into.
 */
export class UnknownFieldScanner {
  private readonly plans = new Map<Type, Plan>();

  /** The unknown fields in `bytes`, an encoded `type`, each message/field pair once; empty when there are none. */
  scan(type: Type, bytes: Uint8Array): UnknownField[] {
    const found = new Map<string, UnknownField>();
    try {
      this.walk(this.planFor(type), bytes, 0, bytes.length, found);
    } catch {
      // Malformed bytes: protobufjs' decode has already thrown or will; nothing to report here.
    }
    return [...found.values()];
  }

  private walk(
    plan: Plan,
    bytes: Uint8Array,
    start: number,
    end: number,
    found: Map<string, UnknownField>,
  ): void {
    const cursor = { at: start };
    while (cursor.at < end) {
      const tag = readVarint(bytes, cursor);
      const number = Math.floor(tag / 8);
      const field = plan.fields.get(number);
      if (field === undefined) {
        const key = `${plan.message}#${number}`;
        if (!found.has(key)) found.set(key, { message: plan.message, field: number });
      }
      switch (tag % 8) {
        case VARINT:
          readVarint(bytes, cursor);
          break;
        case FIXED64:
          cursor.at += 8;
          break;
        case FIXED32:
          cursor.at += 4;
          break;
        case LENGTH_DELIMITED: {
          const length = readVarint(bytes, cursor);
          const contentStart = cursor.at;
          cursor.at += length;
          if (cursor.at > end) throw new RangeError('length past the end of the message');
          if (field) this.walk(field, bytes, contentStart, cursor.at, found);
          break;
        }
        default:
          // Groups (proto2, never in a chain answer) and invalid wire types: stop rather than misread the rest.
          return;
      }
    }
  }

  private planFor(type: Type): Plan {
    const cached = this.plans.get(type);
    if (cached) return cached;
    const plan: Plan = { message: type.fullName.slice(1), fields: new Map() };
    // Registered before its fields are planned, so recursive types end.
    this.plans.set(type, plan);
    for (const field of type.fieldsArray) {
      const nested = field.resolvedType;
      const descend = nested instanceof Type && !nested.fullName.startsWith('.google.protobuf.');
      if (field.map) {
        const value = descend ? this.planFor(nested) : null;
        plan.fields.set(field.id, {
          message: `${plan.message}.${field.name} entry`,
          fields: new Map([
            [1, null],
            [2, value],
          ]),
        });
      } else {
        plan.fields.set(field.id, descend ? this.planFor(nested) : null);
      }
    }
    return plan;
  }
}

/** The base-128 varint at the cursor, which moves past it; exact up to 2^53, which covers every tag and length. */
function readVarint(bytes: Uint8Array, cursor: { at: number }): number {
  let value = 0;
  let scale = 1;
  const last = Math.min(bytes.length, cursor.at + 10);
  for (let offset = cursor.at; offset < last; offset += 1) {
    const byte = bytes[offset]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) {
      cursor.at = offset + 1;
      return value;
    }
    scale *= 128;
  }
  throw new RangeError('truncated varint');
}
