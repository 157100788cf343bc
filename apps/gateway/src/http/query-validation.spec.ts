import { ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import fc from 'fast-check';
import { Expose, Transform, Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, ValidateNested } from 'class-validator';
import {
  AppError,
  CALL_DIRECTIONS,
  CALL_STATUSES,
  CAMPAIGN_STATUSES,
  DEBT_STATUSES,
  DEBTOR_STATUSES,
  DebtListQueryDto,
  DebtorListQueryDto,
  encodeCursor,
  ListCallsQueryDto,
  ListCampaignsQueryDto,
  ListPaymentsQueryDto,
  ListPromisesQueryDto,
  ListQueryDto,
  PROMISE_STATUSES,
} from '@dc/contracts';
import { enableCompiledValidation, queryParserFor } from '@dc/validation';
import { createValidationPipe, VALIDATION_OPTIONS } from './validation.pipe';

enableCompiledValidation();

type Class = new () => object;

/** The query DTOs of the gateway's list routes (every `@Query()` in apps/gateway). */
const QUERY_DTOS: [string, Class][] = Object.entries({
  ListQueryDto,
  DebtorListQueryDto,
  DebtListQueryDto,
  ListCallsQueryDto,
  ListCampaignsQueryDto,
  ListPaymentsQueryDto,
  ListPromisesQueryDto,
});

/** A parsed query string as Fastify's parser (fast-querystring) builds it: an object whose prototype chain lacks Object.prototype. */
function parsedQuery(entries: Record<string, string | string[]>): Record<string, unknown> {
  const query = Object.create(Object.create(null) as object) as Record<string, unknown>;
  for (const [key, value] of Object.entries(entries)) query[key] = value;
  return query;
}

const id = 'dbt_01ARZ3NDEKTSV4RRFFQ69G5FAV';
// Values clients send: good ones for each field of the list queries and the ways they go wrong.
const queryValue = fc.constantFrom(
  ...['', ' ', '0', '-1', '5', '50', '100', '101', '+3', ' 7 ', '5.5', '1e2', 'abc', '99999999999999999999'],
  ...[encodeCursor(id), encodeCursor('not-an-id'), 'garbage', 'x'.repeat(201), `${encodeCursor(id)}=`],
  ...['pf_01ARZ3NDEKTSV4RRFFQ69G5FAV', id, 'x'.repeat(64), 'x'.repeat(65)],
  ...[...DEBTOR_STATUSES, ...DEBT_STATUSES, ...CALL_STATUSES, ...CAMPAIGN_STATUSES, ...PROMISE_STATUSES, ...CALL_DIRECTIONS],
  ...['active,settled', ' active , in_collection ', 'active,', ',', 'nope', 'pending,kept'],
  ...['2026-01-01', '2026-01-01T10:00:00Z', '2026-02-30', 'yesterday'],
);
const fieldValue = fc.oneof({ weight: 5, arbitrary: queryValue }, { weight: 1, arbitrary: fc.array(queryValue, { minLength: 2, maxLength: 3 }) });
/** Every list's fields: those of other lists are unknown to this one. */
const LIST_FIELDS = ['limit', 'cursor', 'portfolioId', 'debtorId', 'campaignId', 'status', 'direction', 'from', 'to'];

/** Queries with the fields of the list routes, now and then an unknown one or one Nest strips first. */
const queries = () =>
  fc.dictionary(fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...LIST_FIELDS) }, { weight: 1, arbitrary: fc.constantFrom('extra', 'Limit', '__proto__', 'constructor') }), fieldValue, { maxKeys: 4 });

const asQuery = (metatype: Class): ArgumentMetadata => ({ type: 'query', metatype, data: undefined });

/** How a pipe answers: the DTO it resolves to, or the issues of its 400. */
async function outcome(pipe: ValidationPipe, value: unknown, metadata: ArgumentMetadata): Promise<{ dto: unknown } | { issues: unknown }> {
  try {
    return { dto: await pipe.transform(value, metadata) };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { issues: err.issues };
  }
}

describe('list queries without class-transformer and class-validator (queryParserFor)', () => {
  const pipe = createValidationPipe();
  // Nest's own pipe with the same options: the transform-and-validate path every query took before.
  const nest = new ValidationPipe(VALIDATION_OPTIONS);

  it('compiles every query DTO of the gateway', () => {
    expect(QUERY_DTOS.filter(([, cls]) => !queryParserFor(cls)).map(([name]) => name)).toEqual([]);
  });

  it.each(QUERY_DTOS)('%s: the gateway answers every query as Nest’s pipe does, and the parser takes each valid one', async (_name, cls) => {
    let taken = 0;
    await fc.assert(
      fc.asyncProperty(queries(), async (entries) => {
        const parsed = queryParserFor(cls)!(parsedQuery(entries));
        const ours = await outcome(pipe, parsedQuery(entries), asQuery(cls));
        const theirs = await outcome(nest, parsedQuery(entries), asQuery(cls));
        expect(ours).toStrictEqual(theirs);
        if (parsed) {
          taken++;
          expect(theirs).toStrictEqual({ dto: parsed });
        }
        // Nest strips __proto__ and constructor before it validates; the parser leaves such queries to it.
        const stripped = '__proto__' in entries || 'constructor' in entries;
        if ('dto' in theirs && !stripped) expect(parsed).toBeDefined();
      }),
      { numRuns: 400 },
    );
    expect(taken).toBeGreaterThan(40); // the property compared parsed queries, not only refusals
  });

  it('converts as the DTOs say: a default limit, numbers, comma lists, the cursor decoded', () => {
    const parse = queryParserFor(DebtorListQueryDto)!;
    expect(parse(parsedQuery({}))).toStrictEqual(Object.assign(new DebtorListQueryDto(), { limit: 50 }));
    const dto = parse(parsedQuery({ limit: '500', cursor: encodeCursor(id), status: 'active, settled', portfolioId: 'pf_1' }));
    expect(dto).toBeInstanceOf(DebtorListQueryDto);
    expect({ ...dto }).toEqual({ limit: 100, cursor: id, status: ['active', 'settled'], portfolioId: 'pf_1' });
    // `status=` means no filter: the field is set, to undefined, as class-transformer sets it.
    expect(Object.entries(parse(parsedQuery({ status: '' }))!)).toEqual([['limit', 50], ['status', undefined]]);
  });

  it('leaves every query it cannot vouch for to class-validator', () => {
    const parse = queryParserFor(DebtorListQueryDto)!;
    for (const entries of <Record<string, string | string[]>[]>[{ limit: 'abc' }, { cursor: 'garbage' }, { status: 'nope' }, { extra: '1' }, { portfolioId: ['a', 'b'] }]) {
      expect(parse(parsedQuery(entries))).toBeUndefined();
    }
    expect(parse(null)).toBeUndefined();
    expect(parse(parsedQuery({ limit: { a: '1' } as unknown as string }))).toBeUndefined();
  });

  describe('classes it does not compile', () => {
    class Item {
      @IsString() name!: string;
    }
    class WithConversion {
      @Type(() => Number) @IsInt() n!: number;
    }
    class WithNested {
      @ValidateNested() @Type(() => Item) item!: Item;
    }
    class WithAccessor {
      @IsOptional() @IsString() name?: string;
      get upper() {
        return this.name?.toUpperCase();
      }
    }
    @Expose()
    class Exposed {
      @IsString() name!: string;
    }
    class Grouped {
      @Transform(({ value }) => value, { groups: ['admin'] }) @IsString() name!: string;
    }
    class NoRules {
      name?: string;
    }
    class NeedsArguments {
      @IsString() name: string;
      constructor(name: string) {
        this.name = name.trim();
      }
    }

    it.each([WithConversion, WithNested, WithAccessor, Exposed, Grouped, NoRules, NeedsArguments] as Class[])('%p', (cls) => {
      expect(queryParserFor(cls)).toBeUndefined();
    });
  });

  it('a transform that throws sends the query to the slow path, which fails as it always did', async () => {
    class Throws {
      @Transform(() => {
        throw new Error('boom');
      })
      @IsOptional()
      @IsString()
      name?: string;
    }
    expect(queryParserFor(Throws)!(parsedQuery({ name: 'x' }))).toBeUndefined();
    await expect(pipe.transform(parsedQuery({ name: 'x' }), asQuery(Throws))).rejects.toThrow('boom');
  });
});
