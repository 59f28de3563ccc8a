// DTOs of the registry service, shared by the app and its tests. Filled in by the service's feature work.
export {};
