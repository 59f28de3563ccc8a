import { join } from 'node:path';

/** Directory holding our .proto files (shipped with the package, next to dist/). */
export const PROTO_ROOT = join(__dirname, '..', 'proto');
