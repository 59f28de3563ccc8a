import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { Metrics } from '@dmrv/metrics';
import { loadProtoRoot, QUERY_PROTO_FILES } from '@dmrv/proto';
import { Field, Root, Type } from 'protobufjs';
import { Random, randomMessage } from '../../test/random-message';
import { buildSeed } from '../../../../tools/local-chain-node/src/seed';
import { UnknownFieldReport } from './unknown-field-report';
import { UnknownFieldScanner } from './unknown-fields';

const FIXTURES = join(__dirname, '__fixtures__');

/** What a newer node's descriptors look like: ours plus fields we have never heard of. */
function newerChain(): Root {
  const root = loadProtoRoot(QUERY_PROTO_FILES);
  root.lookupType('ixo.entity.v1beta1.Entity').add(new Field('risk_score', 40, 'uint64'));
  root.lookupType('ixo.entity.v1beta1.EntityAccount').add(new Field('kind', 3, 'string'));
  root.lookupType('cosmos.base.query.v1beta1.PageResponse').add(new Field('height', 7, 'int64'));
  root.resolveAll();
  return root;
}

function encode(root: Root, typeName: string, object: Record<string, unknown>): Uint8Array {
  const type = root.lookupType(typeName);
  return type.encode(type.fromObject(object)).finish();
}

describe('UnknownFieldScanner: fields a newer node sends that our descriptors lack', () => {
  const ours = loadProtoRoot(QUERY_PROTO_FILES);
  const scanner = new UnknownFieldScanner();

  it('finds them at any depth (inside lists of messages too), each message/field pair once', () => {
    const seed = buildSeed();
    const bytes = encode(newerChain(), 'ixo.entity.v1beta1.QueryEntityListResponse', {
      entities: seed.entities.slice(0, 3).map((entity) => ({
        ...entity,
        risk_score: '7',
        accounts: [{ name: 'admin', address: 'ixo1x', kind: 'module' }],
      })),
      pagination: { next_key: Buffer.from('k'), total: '3', height: '12' },
    });
    expect(scanner.scan(ours.lookupType('ixo.entity.v1beta1.QueryEntityListResponse'), bytes)).toEqual([
      // In wire order: accounts (field 10) comes before field 40.
      { message: 'ixo.entity.v1beta1.EntityAccount', field: 3 },
      { message: 'ixo.entity.v1beta1.Entity', field: 40 },
      { message: 'cosmos.base.query.v1beta1.PageResponse', field: 7 },
    ]);
  });

  it('finds none in what our own descriptors encode: every seed record', () => {
    const seed = buildSeed();
    const cases: Array<[string, Record<string, unknown>]> = [
      ['ixo.entity.v1beta1.QueryEntityListResponse', { entities: seed.entities, pagination: { total: '1' } }],
      ['ixo.claims.v1beta1.QueryClaimListResponse', { claims: seed.claims }],
      ['ixo.claims.v1beta1.QueryCollectionListResponse', { collections: seed.collections }],
      ['ixo.claims.v1beta1.QueryDisputeListResponse', { disputes: seed.disputes }],
      ['ixo.claims.v1beta1.QueryIntentListResponse', { intents: seed.intents }],
      ['ixo.token.v1beta1.QueryTokenListResponse', { tokenDocs: seed.tokens }],
      ['ixo.iid.v1beta1.QueryIidDocumentsResponse', { iidDocuments: seed.iidDocuments }],
    ];
    for (const [typeName, object] of cases) {
      expect({
        typeName,
        unknown: scanner.scan(ours.lookupType(typeName), encode(ours, typeName, object)),
      }).toEqual({
        typeName,
        unknown: [],
      });
    }
  });

  it('finds none in random messages of every field kind (maps, oneofs, well-known types, recursion)', () => {
    const fixtures = loadProtoRoot(['everything.proto', 'everything-else.proto'], FIXTURES);
    const random = new Random(7);
    for (const typeName of ['dmrv.fixture.Everything', 'dmrv.fixture.EverythingElse', 'dmrv.fixture.Tree']) {
      const type = fixtures.lookupType(typeName);
      for (let index = 0; index < 100; index += 1) {
        const bytes = type.encode(type.fromObject(randomMessage(fixtures, type, random))).finish();
        expect({ typeName, index, unknown: scanner.scan(type, bytes) }).toEqual({
          typeName,
          index,
          unknown: [],
        });
      }
    }
  });

  it('reports nothing (and does not throw) on truncated bytes', () => {
    const type = ours.lookupType('ixo.entity.v1beta1.QueryEntityResponse') as Type;
    const bytes = encode(newerChain(), 'ixo.entity.v1beta1.QueryEntityResponse', {
      entity: { id: 'did:ixo:entity:1', risk_score: '1' },
    });
    expect(() => scanner.scan(type, bytes.subarray(0, bytes.length - 3))).not.toThrow();
  });
});

describe('UnknownFieldReport', () => {
  it('counts every occurrence by message and field, and logs once per message type', async () => {
    const metrics = new Metrics('protocol-gateway');
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const report = new UnknownFieldReport(metrics);
      const entity = { message: 'ixo.entity.v1beta1.Entity', field: 40 };
      report.report('ixo.entity.v1beta1.Query/Entity', [entity]);
      report.report('ixo.entity.v1beta1.Query/EntityList', [
        entity,
        { message: 'ixo.entity.v1beta1.Entity', field: 41 },
      ]);
      report.report('ixo.claims.v1beta1.Query/Claim', [{ message: 'ixo.claims.v1beta1.Claim', field: 99 }]);

      const text = await metrics.registry.metrics();
      expect(text).toMatch(
        /dmrv_protocol_unknown_fields_total\{[^}]*message="ixo\.entity\.v1beta1\.Entity",field="40"[^}]*\} 2/,
      );
      expect(text).toMatch(
        /dmrv_protocol_unknown_fields_total\{[^}]*message="ixo\.entity\.v1beta1\.Entity",field="41"[^}]*\} 1/,
      );
      expect(text).toMatch(
        /dmrv_protocol_unknown_fields_total\{[^}]*message="ixo\.claims\.v1beta1\.Claim",field="99"[^}]*\} 1/,
      );
      expect(warn.mock.calls.map(([fields]) => fields)).toEqual([
        { method: 'ixo.entity.v1beta1.Query/Entity', message: 'ixo.entity.v1beta1.Entity', fields: [40] },
        { method: 'ixo.claims.v1beta1.Query/Claim', message: 'ixo.claims.v1beta1.Claim', fields: [99] },
      ]);
    } finally {
      warn.mockRestore();
    }
  });
});
