import { Global, Module } from '@nestjs/common';
import { SqlReader } from './sql-reader';

/** The one reader on the request pool, shared by authentication and the registry (one watcher of its connections). */
@Global()
@Module({ providers: [SqlReader], exports: [SqlReader] })
export class DatabaseModule {}
