import { accountHomeFlow } from './account-home.flow';
import { accountMenuFlow } from './account-menu.flow';
import { createAccountFlow } from './create-account.flow';
import type { FlowScreen, ScreenSpec } from './flow-types';
import { languageFlow } from './language.flow';
import { orderFlow } from './order.flow';
import { preMenuFlow } from './pre-menu.flow';
import { reportFlow } from './report.flow';

/**
 * The flows of the menu machine, each in its own file with its own spec. A screen belongs to exactly one flow, which
 * names it in its screen type (flow-types.ts) and gives it a spec; this file lists flows, never screens. Only the
 * machine and the renderer import it: no flow does.
 */
const FLOWS = [
  preMenuFlow,
  languageFlow,
  accountMenuFlow,
  createAccountFlow,
  accountHomeFlow,
  orderFlow,
  reportFlow,
] as const;

/** Every screen's spec by id: the type fails to compile while a screen of a flow's type has no spec. */
export const SCREEN_SPECS: Record<FlowScreen, ScreenSpec> = {
  ...preMenuFlow,
  ...languageFlow,
  ...accountMenuFlow,
  ...createAccountFlow,
  ...accountHomeFlow,
  ...orderFlow,
  ...reportFlow,
};

const declared = FLOWS.reduce((count, flow) => count + Object.keys(flow).length, 0);
if (declared !== Object.keys(SCREEN_SPECS).length) throw new Error('a screen id is declared by two flows');
