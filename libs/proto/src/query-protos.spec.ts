import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { declaredServices, discoverQueryProtoFiles } from './query-protos';
import { QUERY_PROTO_FILES, QUERY_SERVICES } from './index';

describe('query protos: the module list is the proto tree', () => {
  let protoRoot: string;
  const write = (file: string, text: string): void => {
    mkdirSync(dirname(join(protoRoot, file)), { recursive: true });
    writeFileSync(join(protoRoot, file), text);
  };

  beforeEach(() => {
    protoRoot = mkdtempSync(join(tmpdir(), 'query-protos-'));
  });
  afterEach(() => rmSync(protoRoot, { recursive: true, force: true }));

  it('finds every ixo/<module>/<version>/query.proto in path order, and nothing else', () => {
    write('ixo/token/v1beta1/query.proto', 'syntax = "proto3"; package ixo.token.v1beta1; service Query {}');
    write('ixo/bonds/v1beta1/query.proto', 'syntax = "proto3"; package ixo.bonds.v1beta1; service Query {}');
    write('ixo/bonds/v1beta1/bonds.proto', 'syntax = "proto3"; package ixo.bonds.v1beta1;');
    write('ixo/bonds/v1/query.proto', 'syntax = "proto3"; package ixo.bonds.v1; service Query {}');
    write('ixo/epochs/v1beta1/genesis.proto', 'syntax = "proto3"; package ixo.epochs.v1beta1;');
    write(
      'cosmos/bank/v1beta1/query.proto',
      'syntax = "proto3"; package cosmos.bank.v1beta1; service Query {}',
    );
    expect(discoverQueryProtoFiles(protoRoot)).toEqual([
      'ixo/bonds/v1/query.proto',
      'ixo/bonds/v1beta1/query.proto',
      'ixo/token/v1beta1/query.proto',
    ]);
  });

  it('no ixo directory: no module', () => {
    expect(discoverQueryProtoFiles(protoRoot)).toEqual([]);
  });

  it('reads the services each file declares, with their package, imports unresolved', () => {
    write(
      'ixo/bonds/v1beta1/query.proto',
      [
        'syntax = "proto3";',
        'package ixo.bonds.v1beta1;',
        'import "google/api/annotations.proto";',
        'import "ixo/bonds/v1beta1/bonds.proto";',
        'service Query {',
        '  rpc Bond(QueryBondRequest) returns (QueryBondResponse) {',
        '    option (google.api.http).get = "/ixo/bonds/{bond_did}";',
        '  }',
        '}',
        'service Extra {}',
        'message QueryBondRequest { string bond_did = 1; }',
        'message QueryBondResponse { Bond bond = 1; }',
      ].join('\n'),
    );
    expect(declaredServices(['ixo/bonds/v1beta1/query.proto'], protoRoot)).toEqual([
      'ixo.bonds.v1beta1.Query',
      'ixo.bonds.v1beta1.Extra',
    ]);
  });

  it("the package's own lists: one Query service per module's query.proto (not spelled out: a new module adds itself)", () => {
    expect(QUERY_PROTO_FILES).toEqual(expect.arrayContaining(['ixo/entity/v1beta1/query.proto']));
    expect(QUERY_SERVICES).toEqual(
      QUERY_PROTO_FILES.map((file) => `${file.split('/').slice(0, 3).join('.')}.Query`),
    );
  });
});
