/** The foreign keys of fuel_consumption as the schema migration creates them (PostgreSQL's default names). */
export const READING_KEYS: Array<[string, string]> = [
  ['fuel_consumption_household_id_fkey', 'FOREIGN KEY (household_id) REFERENCES households(id)'],
  ['fuel_consumption_device_id_fkey', 'FOREIGN KEY (device_id) REFERENCES devices(id)'],
];
