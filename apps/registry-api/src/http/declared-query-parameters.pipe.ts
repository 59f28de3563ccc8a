import { ArgumentMetadata, BadRequestException, Injectable, PipeTransform } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';

/**
 * Refuses every query parameter the endpoint's query class does not declare, whatever its name. The validation pipe
 * that runs next does the same for ordinary names, but never sees some: class-transformer drops `__proto__`,
 * `constructor` and any name of an inherited method (`toString`, `hasOwnProperty`) while building the query object,
 * so `?constructor=x` was answered 200 where `?foo=x` is a 400. The message is the validation pipe's own.
 */
const NATIVE_TYPES: ReadonlySet<unknown> = new Set([String, Boolean, Number, Array, Object, Buffer, Date]);

@Injectable()
export class DeclaredQueryParametersPipe implements PipeTransform {
  private readonly declared = new WeakMap<object, ReadonlySet<string>>();

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    // Like the validation pipe, an untyped (`any`, `object`) query is not checked.
    const { metatype } = metadata;
    if (
      metadata.type !== 'query' ||
      !metatype ||
      NATIVE_TYPES.has(metatype) ||
      !value ||
      typeof value !== 'object'
    )
      return value;
    const names = this.namesOf(metatype);
    const unknown = Object.keys(value).filter((name) => !names.has(name));
    if (unknown.length > 0)
      throw new BadRequestException(unknown.map((name) => `property ${name} should not exist`).join('; '));
    return value;
  }

  private namesOf(metatype: object): ReadonlySet<string> {
    let names = this.declared.get(metatype);
    if (!names) {
      const metadatas = getMetadataStorage().getTargetValidationMetadatas(
        metatype as new () => unknown,
        '',
        true,
        false,
      );
      names = new Set(metadatas.map((entry) => entry.propertyName));
      this.declared.set(metatype, names);
    }
    return names;
  }
}
