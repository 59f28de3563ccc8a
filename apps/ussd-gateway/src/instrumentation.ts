// Imported first by main.ts. OpenTelemetry's PostgreSQL instrumentation patches node-postgres as it is required, so
// it is registered before anything requires `pg`; with tracing off it loads nothing.
import { instrumentPostgres } from '@dmrv/tracing';

instrumentPostgres(process.env);
