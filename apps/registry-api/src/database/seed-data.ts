// What the generated registry is made of: its projects, emission factors, fuel mixes and credit buyers.

export const SEED_PROJECTS = [
  {
    id: 'project-001',
    name: 'Copperbelt Clean Cooking',
    country: 'Zambia',
    fnrb: 0.88,
    regions: ['Copperbelt', 'North-Western'],
  },
  {
    id: 'project-002',
    name: 'Lusaka LPG Access',
    country: 'Zambia',
    fnrb: 0.85,
    regions: ['Lusaka', 'Central'],
  },
  {
    id: 'project-003',
    name: 'Eastern Pellet Stoves',
    country: 'Zambia',
    fnrb: 0.8,
    regions: ['Eastern', 'Muchinga'],
  },
  {
    id: 'project-004',
    name: 'Southern Efficient Stoves',
    country: 'Zambia',
    fnrb: 0.82,
    regions: ['Southern', 'Western'],
  },
  {
    id: 'project-005',
    name: 'Northern Ethanol Cooking',
    country: 'Zambia',
    fnrb: 0.86,
    regions: ['Northern', 'Luapula'],
  },
] as const;

// IPCC 2006 defaults for wood fuel: NCV 0.0156 TJ/t, EF_CO2 112 tCO2/TJ; CH4 300 kg/TJ and N2O 4 kg/TJ at GWP 28/265
// give 9.46 tCO2e/TJ of non-CO2 emissions.
export const NCV = 0.0156;
export const EF_CO2 = 112;
export const EF_NON_CO2 = 9.46;

/** Fuel combinations and their cumulative shares (stove stacking as surveys in Zambia report it, roughly). */
export const COMBINATIONS: Array<[number, string[]]> = [
  [0.3, ['LPG', 'Biomass']],
  [0.48, ['Biomass']],
  [0.62, ['Charcoal']],
  [0.72, ['LPG']],
  [0.8, ['LPG', 'Charcoal']],
  [0.86, ['Electricity', 'Charcoal']],
  [0.91, ['Charcoal', 'Biomass']],
  [0.94, ['Ethanol', 'Biomass']],
  [0.96, ['Biogas', 'Biomass']],
  [0.98, ['LPG', 'Electricity']],
  [1.0001, ['Kerosene', 'Charcoal']],
];

export const BUYERS = [
  'Northwind Carbon Fund',
  'Kafue Climate Trust',
  'Meridian Retail Group',
  'Greenline Aviation',
  'Zambezi Offset Exchange',
];
