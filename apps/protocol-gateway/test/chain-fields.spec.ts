import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  chainFieldsModule,
  chainFieldTables,
  chainFieldType as typeOf,
  CUSTOMTYPE_OPTION,
  fileDescriptors,
  loadProtoRoot,
  QUERY_PROTO_FILES,
  QUERY_SERVICES,
} from '@dmrv/proto';
import { Enum, Field, Root, Type } from 'protobufjs';
import { rootFromFileDescriptors } from '../src/routes/node-descriptors';
import { RouteTable } from '../src/routes/route-table';
import {
  CHAIN_CUSTOM_TYPES,
  CHAIN_EMPTY_MESSAGES,
  CHAIN_ENUM_VALUES,
  CHAIN_FIELDS,
} from './chain-fields.generated';

// The tables are generated from our query protos (libs/proto/scripts/generate-chain-fields.mjs), which were read from
// the chain's own (github.com/ixofoundation/ixo-blockchain, proto/ixo/<module>/v1beta1/, commit bfdd934456be, v8):
// a proto change shows in the tables' diff, field by field. What stays checked here: the file is current, the gateway's
// route table reaches exactly the tables' messages, and the descriptors a node hands out keep every field and
// customtype.
const GENERATED = join(__dirname, 'chain-fields.generated.ts');

/** Every message a route of `root` sends or receives, and the messages inside them. */
function reachableMessages(root: Root): Type[] {
  const found = new Map<string, Type>();
  const queue = RouteTable.fromRoot(root, QUERY_SERVICES).routes.flatMap((route) => [
    route.requestType,
    route.responseType,
  ]);
  for (let type = queue.shift(); type; type = queue.shift()) {
    if (found.has(type.fullName) || type.fullName.startsWith('.google.protobuf.')) continue;
    found.set(type.fullName, type);
    for (const field of type.fieldsArray)
      if (field.resolvedType instanceof Type) queue.push(field.resolvedType);
  }
  return [...found.values()];
}

/** What `root` gets wrong against the chain's definition: one line per missing, misnamed or mistyped field. */
function descriptorGaps(root: Root): string[] {
  const gaps: string[] = [];
  for (const [message, number, name, type] of CHAIN_FIELDS) {
    const field = root.lookupType(message).fieldsArray.find((candidate) => candidate.id === number);
    if (!field) gaps.push(`${message} #${number} ${name}: missing`);
    else if (field.name !== name || typeOf(field) !== type)
      gaps.push(`${message} #${number}: ${field.name} ${typeOf(field)}, the chain has ${name} ${type}`);
  }
  for (const [enumName, number, name] of CHAIN_ENUM_VALUES) {
    if (root.lookupEnum(enumName).values[name] !== number)
      gaps.push(`${enumName}.${name} = ${number}: missing`);
  }
  const defined = new Set(CHAIN_FIELDS.map(([message, number]) => `${message}#${number}`));
  const messages = new Set([...CHAIN_FIELDS.map(([message]) => message), ...CHAIN_EMPTY_MESSAGES]);
  for (const type of reachableMessages(root)) {
    const message = type.fullName.slice(1);
    if (!messages.has(message)) gaps.push(`${message}: not in the chain's definition table`);
    for (const field of type.fieldsArray) {
      if (!defined.has(`${message}#${field.id}`))
        gaps.push(`${message} #${field.id} ${field.name}: not a field of the chain's definition`);
    }
  }
  return gaps;
}

/** Every `(gogoproto.customtype)` of a field the routes reach: `message #number customtype`. */
function customTypes(root: Root): string[] {
  return reachableMessages(root)
    .flatMap((type) =>
      type.fieldsArray.map((field) => [type.fullName.slice(1), field.id, field.getOption(CUSTOMTYPE_OPTION)]),
    )
    .filter(([, , customtype]) => customtype !== undefined)
    .map(([message, number, customtype]) => `${String(message)} #${String(number)} ${String(customtype)}`)
    .sort();
}

describe("compiled-in descriptors against the chain's definition (test/chain-fields.generated.ts)", () => {
  it('the generated tables are current (else: node scripts/pnpm.mjs --filter @dmrv/proto run generate:chain-fields)', () => {
    const root = loadProtoRoot(QUERY_PROTO_FILES);
    expect(readFileSync(GENERATED, 'utf8')).toBe(chainFieldsModule(chainFieldTables(root, QUERY_SERVICES)));
  });

  it('are stale once a proto changes a field', () => {
    const root = loadProtoRoot(QUERY_PROTO_FILES);
    const claim = root.lookupType('ixo.claims.v1beta1.Claim');
    claim.remove(claim.fields.member_address!);
    claim.add(new Field('member_address', 13, 'bytes'));
    root.resolveAll();
    const regenerated = chainFieldsModule(chainFieldTables(root, QUERY_SERVICES));
    expect(regenerated).not.toBe(readFileSync(GENERATED, 'utf8'));
    expect(regenerated).toContain('["ixo.claims.v1beta1.Claim", 13, "member_address", "bytes"],');
  });

  it('every field of every message of every served route: present, same number, name and type', () => {
    expect(descriptorGaps(loadProtoRoot(QUERY_PROTO_FILES))).toEqual([]);
  });

  it('covers every message the routes reach', () => {
    const reached = reachableMessages(loadProtoRoot(QUERY_PROTO_FILES)).map((type) => type.fullName.slice(1));
    expect(reached).toEqual(
      expect.arrayContaining(['ixo.entity.v1beta1.EntityAccount', 'ixo.claims.v1beta1.DisputeResolution']),
    );
    expect(reached.length).toBe(
      new Set([...CHAIN_FIELDS.map(([message]) => message), ...CHAIN_EMPTY_MESSAGES]).size,
    );
  });

  it('names a field the descriptor lacks (Entity.accounts: the answer would silently lose it)', () => {
    const root = loadProtoRoot(QUERY_PROTO_FILES);
    const entity = root.lookupType('ixo.entity.v1beta1.Entity');
    entity.remove(entity.fields.accounts!);
    expect(descriptorGaps(root)).toEqual([
      'ixo.entity.v1beta1.Entity #10 accounts: missing',
      // EntityAccount is still in the table, but no route reaches it any more: nothing else to report.
    ]);
  });

  it('names a mistyped or renamed field and a missing enum value', () => {
    const root = loadProtoRoot(QUERY_PROTO_FILES);
    const claim = root.lookupType('ixo.claims.v1beta1.Claim');
    claim.remove(claim.fields.member_address!);
    claim.add(new Field('member_address', 13, 'bytes'));
    const intent = root.lookupType('ixo.claims.v1beta1.Intent');
    intent.remove(intent.fields.member_address!);
    intent.add(new Field('memberAddress', 15, 'string'));
    const status = root.lookupEnum('ixo.claims.v1beta1.EvaluationStatus');
    status.remove('FLAGGED');
    root.resolveAll();
    expect(descriptorGaps(root).sort()).toEqual([
      'ixo.claims.v1beta1.Claim #13: member_address bytes, the chain has member_address string',
      'ixo.claims.v1beta1.EvaluationStatus.FLAGGED = 5: missing',
      'ixo.claims.v1beta1.Intent #15: memberAddress string, the chain has member_address string',
    ]);
  });

  it("carries the chain's customtype of every field (LegacyDec, Int, Uint), and the node's descriptors keep them", () => {
    const expected = CHAIN_CUSTOM_TYPES.map(
      ([message, number, customtype]) => `${message} #${number} ${customtype}`,
    ).sort();
    const compiled = loadProtoRoot(QUERY_PROTO_FILES);
    expect(customTypes(compiled)).toEqual(expected);
    expect(customTypes(rootFromFileDescriptors(fileDescriptors(compiled)))).toEqual(expected);
  });

  it('every enum value of the table is an Enum of the loaded root', () => {
    const root = loadProtoRoot(QUERY_PROTO_FILES);
    for (const [enumName] of CHAIN_ENUM_VALUES) expect(root.lookupEnum(enumName)).toBeInstanceOf(Enum);
  });
});
