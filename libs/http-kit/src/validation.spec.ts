import 'reflect-metadata';
import { ArgumentMetadata, BadRequestException } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max } from 'class-validator';
import { strictValidationPipe } from './validation';

class PageQuery {
  @Type(() => Number)
  @IsInt()
  @Max(500)
  limit!: number;

  @IsOptional()
  @IsString({ each: true })
  tags?: string[];
}

class OtherQuery {
  @Type(() => Number)
  @IsInt()
  limit!: number;
}

const query = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({ type: 'query', metatype });

describe('strictValidationPipe', () => {
  it('turns every query into a DTO of its own, nothing kept between requests', async () => {
    const pipe = strictValidationPipe();
    const first = (await pipe.transform({ limit: '20', tags: ['a', 'b'] }, query(PageQuery))) as PageQuery;
    const again = (await pipe.transform({ limit: '20', tags: ['a', 'b'] }, query(PageQuery))) as PageQuery;

    expect(first).toBeInstanceOf(PageQuery);
    expect(first).toEqual(Object.assign(new PageQuery(), { limit: 20, tags: ['a', 'b'] }));
    expect(again).toEqual(first);
    expect(again).not.toBe(first);
    expect(Object.isFrozen(first)).toBe(false);
    await expect(pipe.transform({ limit: '20', tags: ['a', 'b'] }, query(OtherQuery))).rejects.toEqual(
      new BadRequestException('property tags should not exist'),
    );
  });

  it('refuses an invalid query every time with its message', async () => {
    const pipe = strictValidationPipe();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await expect(pipe.transform({ limit: '501' }, query(PageQuery))).rejects.toEqual(
        new BadRequestException('limit must not be greater than 500'),
      );
    }
  });

  it.each(['constructor', 'prototype', 'toString', '__proto__'])(
    'refuses a parameter named %s like any unknown one, in a query or a body',
    async (name) => {
      const pipe = strictValidationPipe();
      const value: Record<string, unknown> = { limit: '5' };
      Object.defineProperty(value, name, { value: 'x', enumerable: true });
      const expected = new BadRequestException(`property ${name} should not exist`);
      await expect(pipe.transform(value, query(PageQuery))).rejects.toEqual(expected);
      await expect(pipe.transform(value, { type: 'body', metatype: OtherQuery })).rejects.toEqual(expected);
    },
  );
});
