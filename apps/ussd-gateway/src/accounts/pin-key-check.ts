import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { ConfigValidationError } from '@dmrv/config';
import { AccountsRepository } from './accounts.repository';
import { PinVault } from './pin-vault';

const RESTORED =
  'Give the key this database was written with (a database restored from a backup needs the escrowed key of the installation it came from: docs/operations.md)';

/**
 * Start-up refuses keys that cannot open the PINs the database holds: a database restored with another
 * installation's PIN_ENCRYPTION_KEY, or a key id that names no configured key, would otherwise start and answer every
 * log-in as if the PIN were wrong, locking subscribers out one by one. One stored PIN is opened (no hashing), as a
 * configuration error naming the variable, like any missing secret.
 */
@Injectable()
export class PinKeyCheck implements OnApplicationBootstrap {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly vault: PinVault,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const sealed = await this.accounts.anySealedPin();
    const found = sealed === undefined ? undefined : this.vault.unopenable(sealed);
    if (found === undefined) return;
    const current = this.vault.currentKeyId;
    const problem =
      found.reason === 'unknown key'
        ? `does not open the PINs in this database: they are sealed under key "${found.keyId}", which neither PIN_ENCRYPTION_KEY_ID ("${current}") nor PIN_PREVIOUS_KEYS names. ${RESTORED}`
        : `does not open the PINs in this database, sealed under key "${found.keyId}": the key configured under that id is not the one they were written with. ${RESTORED}`;
    const variable =
      found.reason === 'wrong key' && found.keyId !== current ? 'PIN_PREVIOUS_KEYS' : 'PIN_ENCRYPTION_KEY';
    throw new ConfigValidationError('ussd-gateway', [{ variable, problem }]);
  }
}
