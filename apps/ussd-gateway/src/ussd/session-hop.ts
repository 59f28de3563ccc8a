import { Injectable } from '@nestjs/common';
import type { UssdSessionRequest } from '@dmrv/contracts';
import { InvalidInputError } from '@dmrv/errors';
import { MenuRenderer } from '../menus/menu-renderer';
import type { PhoneLanguageCopy } from '../phone-languages/phone-language-copy';
import { deriveNewInputs } from './cumulative-text';
import { EffectContext, HopEffects } from './hop-effects';
import type { UssdSessionRecord } from './hop-opener';
import { rendered } from './hop-render';
import { HopResult, outOfStep, replayed } from './hop-replay';
import { HopResume } from './hop-resume';
import { SessionDigests } from './session-digests';

/**
 * One hop on its locked session, in named steps: replay (a retry or a hop after the end, answered from the record),
 * what is new in the cumulative `text` (text that does not continue the session is answered, nothing changes),
 * resume (the record, or a new one, checked against the account as it stands), apply (each new input through the
 * menu machine and the work it asks for), render (the answer, and the record to save).
 */
@Injectable()
export class SessionHop {
  constructor(
    private readonly digests: SessionDigests,
    private readonly resume: HopResume,
    private readonly effects: HopEffects,
    private readonly renderer: MenuRenderer,
  ) {}

  async run(
    request: UssdSessionRequest,
    existing: UssdSessionRecord | null,
    deadline: EffectContext['deadline'],
    phoneLanguage: PhoneLanguageCopy | undefined,
  ): Promise<HopResult> {
    if (existing && existing.phoneNumber !== request.phoneNumber) {
      throw new InvalidInputError('sessionId belongs to another phone number');
    }
    const textDigest = this.digests.text(request.text);
    const replay = existing && replayed(existing, textDigest);
    if (replay) return replay;
    const derived = deriveNewInputs(existing ? existing.consumed : null, request.text, this.digests.text);
    if (derived.kind === 'outOfStep') return outOfStep(existing);
    const resumed = await this.resume.resume(request, existing, derived.inputs, phoneLanguage);
    const state = await this.effects.applyAll(resumed, derived.inputs, request, deadline);
    const consumed = { length: request.text.length, digest: textDigest };
    return rendered(this.renderer, resumed, state, consumed, existing === null);
  }
}
