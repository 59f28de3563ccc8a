import type { components, paths } from './openapi.generated.js';

/** A route of the registry data API, below its base URL (`/households/stats`, `/claims/fuel-purchase/list` …). */
export type RegistryPath = keyof paths;

/** The operation behind a route. */
type Operation<P extends RegistryPath> = paths[P]['get'];

/** A route's query parameters, named and typed as the API takes them; `header`, `path` and `cookie` are `never`. */
export type RouteParameters<P extends RegistryPath> = Operation<P>['parameters'];

/** A route's 200 answer. */
export type RegistryAnswer<P extends RegistryPath> =
  Operation<P>['responses'][200]['content']['application/json'];

/** A schema of the document by its name: `Schema<'FuelPurchaseClaim'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/** The `{ message }` body of every answer outside 2xx. */
export type ErrorBody = components['schemas']['Error'];

/** The routes that page with `cursor` and answer `page_info.next_cursor` (the `/list` collections). */
export type ListPath = {
  [P in RegistryPath]: RegistryAnswer<P> extends { page_info: { next_cursor: string | null } } ? P : never;
}[RegistryPath];

/** One item of a collection: `ItemOf<'/claims/fuel-purchase/list'>`. */
export type ItemOf<P extends ListPath> = RegistryAnswer<P> extends { data: Array<infer Item> } ? Item : never;

/** The query of a route, `cursor` left to `paginate`. */
export type ListQuery<P extends ListPath> = Omit<NonNullable<RouteParameters<P>['query']>, 'cursor'>;
