import { createPrivateKey, KeyObject } from 'node:crypto';
import { ValidateBy, ValidateIf } from 'class-validator';
import { parseJwks, type JsonWebKeySet } from '@dmrv/http-signatures';

/** The Ed25519 private key in a PEM text (PKCS#8, as `openssl genpkey -algorithm ed25519` writes it); undefined if not. */
export function ed25519PrivateKey(pem: string): KeyObject | undefined {
  try {
    const key = createPrivateKey({ key: pem, format: 'pem' });
    return key.asymmetricKeyType === 'ed25519' ? key : undefined;
  } catch {
    return undefined;
  }
}

/** Keys that signed before the current one, each with the time it stopped (`exp`); throws a message saying what is wrong. */
export function retiredKeys(json: string): JsonWebKeySet {
  let document: unknown;
  try {
    document = JSON.parse(json);
  } catch {
    throw new Error('must be a JWKS document (JSON)');
  }
  const set = parseJwks(document);
  const open = set.keys.find((key) => key.exp === undefined);
  if (open !== undefined) throw new Error(`key ${open.kid} has no exp (the time it stopped signing)`);
  return set;
}

interface SigningSettings {
  NODE_ENV: string;
  SIGNING_KEY?: string;
  SIGNING_DISABLED: boolean;
}

/**
 * SIGNING_KEY: checked when set; required in production unless SIGNING_DISABLED says answers go out unsigned. The
 * messages name the variables, never the value.
 */
export function SigningKeyVariable(): PropertyDecorator {
  const rules = [
    ValidateIf(
      (settings: SigningSettings) =>
        settings.SIGNING_KEY !== undefined ||
        (settings.NODE_ENV === 'production' && !settings.SIGNING_DISABLED),
    ),
    ValidateBy({
      name: 'signingKey',
      validator: {
        validate: (value: unknown, args) => {
          const settings = args?.object as SigningSettings;
          if (value === undefined || settings.SIGNING_DISABLED) return false;
          return typeof value === 'string' && ed25519PrivateKey(value) !== undefined;
        },
        defaultMessage: (args) => {
          const settings = args?.object as SigningSettings;
          if (settings.SIGNING_DISABLED) return 'set SIGNING_KEY or SIGNING_DISABLED=true, not both';
          if (args?.value === undefined)
            return 'is required in production: an Ed25519 private key in PEM (usually through SIGNING_KEY_FILE); set SIGNING_DISABLED=true to serve unsigned answers';
          return 'must be an Ed25519 private key in PEM (PKCS#8: openssl genpkey -algorithm ed25519)';
        },
      },
    }),
  ];
  return (target, property) => rules.forEach((rule) => rule(target, property));
}

/** SIGNING_RETIRED_KEYS: when set, a JWKS of Ed25519 public keys, each with `exp`. */
export function RetiredKeysVariable(): PropertyDecorator {
  let problem = '';
  const rules = [
    ValidateIf((settings: { SIGNING_RETIRED_KEYS?: string }) => settings.SIGNING_RETIRED_KEYS !== undefined),
    ValidateBy({
      name: 'retiredKeys',
      validator: {
        validate: (value: unknown) => {
          try {
            retiredKeys(String(value));
            return true;
          } catch (error) {
            problem = (error as Error).message;
            return false;
          }
        },
        defaultMessage: () => problem,
      },
    }),
  ];
  return (target, property) => rules.forEach((rule) => rule(target, property));
}
