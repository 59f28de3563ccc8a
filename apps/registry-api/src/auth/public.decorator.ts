import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'registry:public';

/** Routes that answer without credentials: liveness and the API documents. */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);
