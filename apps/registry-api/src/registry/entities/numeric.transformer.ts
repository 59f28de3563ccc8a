import { ValueTransformer } from 'typeorm';

/** node-postgres returns `numeric` as a string (to keep precision); our quantities fit a double comfortably. */
export const numericTransformer: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};
