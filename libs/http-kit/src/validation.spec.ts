import 'reflect-metadata';
import { ArgumentMetadata, BadRequestException } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max } from 'class-validator';
import { REMEMBERED_QUERIES, strictValidationPipe } from './validation';

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

describe('strictValidationPipe on query strings', () => {
  it('answers a query it validated before with the same DTO, frozen through, for that DTO class only', async () => {
    const pipe = strictValidationPipe();
    const first = (await pipe.transform({ limit: '20', tags: ['a', 'b'] }, query(PageQuery))) as PageQuery;
    const again = (await pipe.transform({ limit: '20', tags: ['a', 'b'] }, query(PageQuery))) as PageQuery;

    expect(first).toBeInstanceOf(PageQuery);
    expect(first).toEqual(Object.assign(new PageQuery(), { limit: 20, tags: ['a', 'b'] }));
    expect(again).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.tags)).toBe(true);
    expect(() => {
      'use strict';
      (first as { limit: number }).limit = 1;
    }).toThrow(TypeError);

    const other = await pipe.transform({ limit: '20', tags: ['a', 'b'] }, query(PageQuery));
    expect(other).toBe(first);
    await expect(pipe.transform({ limit: '20', tags: ['a', 'b'] }, query(OtherQuery))).rejects.toEqual(
      new BadRequestException('property tags should not exist'),
    );
    expect(await pipe.transform({ limit: '21' }, query(PageQuery))).not.toBe(first);
  });

  it('refuses an invalid query every time with its message, and never remembers it', async () => {
    const pipe = strictValidationPipe();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await expect(pipe.transform({ limit: '501' }, query(PageQuery))).rejects.toEqual(
        new BadRequestException('limit must not be greater than 500'),
      );
    }
    await expect(pipe.transform({ limit: '5', constructor: 'x' }, query(PageQuery))).rejects.toEqual(
      new BadRequestException('property constructor should not exist'),
    );
  });

  it(`remembers at most ${REMEMBERED_QUERIES} queries, forgetting the oldest first`, async () => {
    const pipe = strictValidationPipe();
    const oldest = await pipe.transform({ limit: '0' }, query(OtherQuery));
    const newest = await pipe.transform({ limit: '1' }, query(OtherQuery));
    for (let limit = 2; limit <= REMEMBERED_QUERIES; limit += 1)
      await pipe.transform({ limit: String(limit) }, query(OtherQuery));

    expect(await pipe.transform({ limit: '1' }, query(OtherQuery))).toBe(newest);
    const revalidated = await pipe.transform({ limit: '0' }, query(OtherQuery));
    expect(revalidated).not.toBe(oldest);
    expect(revalidated).toEqual(oldest);
  });

  it('validates a body afresh every time (only query strings are remembered)', async () => {
    const pipe = strictValidationPipe();
    const body: ArgumentMetadata = { type: 'body', metatype: OtherQuery };
    const first = await pipe.transform({ limit: 3 }, body);
    expect(await pipe.transform({ limit: 3 }, body)).not.toBe(first);
    expect(Object.isFrozen(first)).toBe(false);
  });
});
