import { accountHomeFlow, AccountHomeScreen } from './account-home.flow';
import { accountMenuFlow, AccountMenuScreen } from './account-menu.flow';
import { createAccountFlow, CreateAccountScreen } from './create-account.flow';
import type { ScreenSpec } from './flow';
import { languageFlow, LanguageScreen } from './language.flow';
import { orderFlow, OrderScreen } from './order.flow';
import { preMenuFlow, PreMenuScreen } from './pre-menu.flow';
import { reportFlow, ReportScreen } from './report.flow';

/**
 * The flows of the menu machine, each in its own file with its own spec. A screen belongs to exactly one flow, which
 * names it in its screen type and gives it a spec; this file lists flows, never screens.
 */
export type FlowScreen =
  | PreMenuScreen
  | LanguageScreen
  | AccountMenuScreen
  | CreateAccountScreen
  | AccountHomeScreen
  | OrderScreen
  | ReportScreen;

/** `ended`: the session is over (an END text); it takes no input and belongs to no flow. */
export type ScreenId = FlowScreen | 'ended';

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
