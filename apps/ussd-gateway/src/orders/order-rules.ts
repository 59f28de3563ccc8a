// The rules moved to domain/ (below menus/, which needs them too); this keeps operators/ and orders.repository.ts
// compiling until their imports name domain/order-rules directly.
export * from '../domain/order-rules';
