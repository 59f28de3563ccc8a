import { canonicalJson, manifestSigningInput, MANIFEST_FORMAT, parseManifest } from './export-manifest';

describe('export manifest', () => {
  it('signs RFC 8785 canonical JSON: members sorted, no whitespace, the signature value left out', () => {
    expect(canonicalJson({ b: [2, { d: 'é', c: null }], a: 'x"y' })).toBe(
      '{"a":"x\\"y","b":[2,{"c":null,"d":"é"}]}',
    );
    const manifest = {
      format: MANIFEST_FORMAT,
      created: '2026-12-01T12:00:00Z',
      files: [{ name: 'projects.csv', sha256: '0'.repeat(64), bytes: 10, rows: 1 }],
      signature: { alg: 'ed25519', keyid: 'k', value: 'c2ln' },
    } as const;
    expect(new TextDecoder().decode(manifestSigningInput({ ...manifest, files: [...manifest.files] }))).toBe(
      `{"created":"2026-12-01T12:00:00Z","files":[{"bytes":10,"name":"projects.csv","rows":1,"sha256":"${'0'.repeat(64)}"}],` +
        `"format":"${MANIFEST_FORMAT}","signature":{"alg":"ed25519","keyid":"k"}}`,
    );
  });

  it.each([
    [{ format: 'other' }, `not a manifest of format ${MANIFEST_FORMAT}`],
    [{ format: MANIFEST_FORMAT, created: 'soon', files: [] }, 'created: must be an ISO 8601 time'],
    [
      {
        format: MANIFEST_FORMAT,
        created: '2026-12-01T12:00:00Z',
        files: [{ name: '../etc/passwd', sha256: '0'.repeat(64), bytes: 1, rows: 1 }],
      },
      'files[0].name: must be a plain file name',
    ],
    [
      {
        format: MANIFEST_FORMAT,
        created: '2026-12-01T12:00:00Z',
        files: [],
        signature: { alg: 'rsa', keyid: 'k', value: 'x' },
      },
      'signature: must hold alg "ed25519", keyid and value',
    ],
  ])('refuses %j', (document, message) => {
    expect(() => parseManifest(document)).toThrow(message);
  });
});
