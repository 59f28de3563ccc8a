import { paginate } from './paginate';
import { page, Plain, required, str, QueryHandlers } from './handler-kit';
import { agentAddress, SEED_COUNTS } from './seed';

// Modules outside ixo.* (EXTRA_MODULES), which the gateway learns through reflection.

/** Each agent holds uixo and a carbon credit denomination, amounts from its index; other addresses hold nothing. */
function balancesOf(address: string): Plain[] {
  for (let i = 0; i < SEED_COUNTS.agents; i += 1) {
    if (agentAddress(i) === address) {
      return [
        { denom: 'ucarbon', amount: String(250 * (i + 1)) },
        { denom: 'uixo', amount: String(1_000_000 * (i + 1)) },
      ];
    }
  }
  return [];
}

export function cosmosHandlers(): QueryHandlers {
  return {
    'cosmos.bank.v1beta1.Query': {
      Balance: (request) => {
        const address = required(request, 'address');
        const denom = required(request, 'denom');
        const held = balancesOf(address).find((coin) => coin.denom === denom);
        return { balance: held ?? { denom, amount: '0' } };
      },
      AllBalances: (request) => {
        const { items, pagination } = paginate(
          balancesOf(required(request, 'address')),
          str('denom'),
          page(request),
        );
        return { balances: items, pagination };
      },
    },
    'cosmos.mint.v1beta1.Query': {
      Params: () => ({
        params: {
          mint_denom: 'uixo',
          inflation_rate_change: '0.130000000000000000',
          inflation_max: '0.200000000000000000',
          inflation_min: '0.070000000000000000',
          goal_bonded: '0.670000000000000000',
          blocks_per_year: '6311520',
        },
      }),
    },
  };
}
