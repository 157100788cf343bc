import 'reflect-metadata';
import fc from 'fast-check';
import { Expose, plainToInstance, Transform, Type } from 'class-transformer';
import { getMetadataStorage, IsInt, IsObject, IsOptional, IsString, MaxLength, ValidateIf, ValidateNested, ValidatePromise, validateSync } from 'class-validator';
import * as contracts from '@dc/contracts';
import { DebtorBatchDto } from '@dc/contracts';
import { enableCompiledValidation, validCheckFor } from './valid-check';

enableCompiledValidation();

type Class = new () => object;

// Not structuredClone: Jest runs tests in their own realm, and structuredClone builds objects of Node's.
const jsonCopy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** What the gateway's ValidationPipe does with a body: transform, then validate with its options. */
function slowPath(cls: Class, plain: unknown): { valid: boolean; entity: unknown } {
  const entity = plainToInstance(cls, jsonCopy(plain));
  const errors = validateSync(entity as object, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true });
  return { valid: errors.length === 0, entity };
}

const dtoClasses = Object.entries(contracts).filter(([name, value]) => typeof value === 'function' && /Dto$/.test(name)) as [string, Class][];
const propertiesOf = (cls: Class) => [...new Set(getMetadataStorage().getTargetValidationMetadatas(cls, '', false, false, undefined).map((m) => m.propertyName))];

// Values that pass or nearly pass the contracts' rules, and values that break them in the ways clients do.
const edgeString = fc.constantFrom('', 'x', ' ', 'EUR', 'eur', 'ES', 'holder', 'a@b.co', 'not-an-email', '2026-06-30', '2026-02-30', '2026-06-30T10:00:00Z',
  '\uFE0F', '😀', 'x'.repeat(64), 'x'.repeat(65), 'x'.repeat(129), 'x'.repeat(200), 'x'.repeat(201), '+34 600 000 000', 'pf_0000000000000000000000', 'active', 'paused');
const primitive = fc.oneof(edgeString, fc.string({ maxLength: 12 }), fc.integer({ min: -5, max: 1e6 }), fc.double({ noNaN: true }), fc.constantFrom(0, 0.5, 1, 1e12, 1e15, -1), fc.boolean(), fc.constant(null));
const anyValue = fc.oneof({ weight: 6, arbitrary: primitive }, fc.array(primitive, { maxLength: 3 }), fc.dictionary(fc.constantFrom('a', 'phone', 'externalId'), primitive, { maxKeys: 2 }));

/** Objects shaped like a class: its own property names (nested classes followed), now and then an unknown one. */
function shapedLike(cls: Class, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const entries = propertiesOf(cls).map((name) => {
    const type = (Reflect.getMetadata('design:type', cls.prototype, name) as unknown) === Array ? 'array' : 'single';
    const nested = nestedClassOf(cls, name);
    const value: fc.Arbitrary<unknown> =
      nested && depth < 2
        ? fc.oneof({ weight: 3, arbitrary: type === 'array' ? fc.array(shapedLike(nested, depth + 1), { maxLength: 3 }) : shapedLike(nested, depth + 1) }, { weight: 1, arbitrary: anyValue })
        : anyValue;
    return [name, value] as const;
  });
  const known = fc.record(Object.fromEntries(entries), { requiredKeys: [] }) as fc.Arbitrary<Record<string, unknown>>;
  return fc.oneof({ weight: 9, arbitrary: known }, { weight: 1, arbitrary: fc.tuple(known, fc.constantFrom('extra', 'id', '__proto__')).map(([o, k]) => ({ ...o, [k]: 1 })) });
}

function nestedClassOf(cls: Class, name: string): Class | undefined {
  const storage = require('class-transformer/cjs/storage').defaultMetadataStorage;
  return storage.findTypeMetadata(cls, name)?.typeFunction() as Class | undefined;
}

describe('validCheckFor', () => {
  const compiled = dtoClasses.filter(([, cls]) => validCheckFor(cls));

  it('compiles the request bodies whose transformation changes nothing, the debtor batch among them', () => {
    expect(compiled.map(([name]) => name)).toEqual(expect.arrayContaining(['DebtorBatchDto', 'BatchDebtorDto', 'BatchDebtDto', 'RegisterPaymentDto', 'CreateWebhookDto']));
    // @Transform and @Type(() => Number) change the value before it is validated.
    expect(validCheckFor(contracts.ListQueryDto)).toBeUndefined();
    expect(validCheckFor(contracts.CreateCallDto)).toBeUndefined();
  });

  it.each(dtoClasses.filter(([, cls]) => validCheckFor(cls)))('%s: accepts only what the transform-and-validate path accepts, and returns the same value', (_name, cls) => {
    const check = validCheckFor(cls)!;
    fc.assert(
      fc.property(shapedLike(cls).map(jsonCopy), (plain) => {
        if (!check(plain)) return;
        const slow = slowPath(cls, plain);
        expect(slow.valid).toBe(true);
        expect(JSON.stringify(slow.entity)).toBe(JSON.stringify(plain));
      }),
      { numRuns: 300 },
    );
  });

  describe('the debtor batch', () => {
    const check = validCheckFor(DebtorBatchDto)!;
    const phone = fc.record({ phone: fc.constantFrom('+34 600 000 001', '600000002'), primary: fc.boolean(), owner: fc.constantFrom('holder', 'guarantor') }, { requiredKeys: ['phone'] });
    const email = fc.record({ address: fc.constantFrom('ana@example.com', 'b@c.io'), primary: fc.boolean(), type: fc.constant('work') }, { requiredKeys: ['address'] });
    const debt = fc.record(
      {
        externalId: fc.string({ minLength: 1, maxLength: 20 }),
        totalAmount: fc.constantFrom(1, 10.5, 999999.99),
        paidAmount: fc.constantFrom(0, 0.25),
        currency: fc.constantFrom('EUR', 'USD'),
        dueDate: fc.constantFrom('2026-06-30', '2026-06-30T10:00:00+02:00'),
        issueDate: fc.constant('2025-01-31'),
        description: fc.string({ maxLength: 30 }),
        debtType: fc.constant('loan'),
      },
      { requiredKeys: ['externalId', 'totalAmount', 'currency'] },
    );
    const debtor = fc.record(
      {
        externalId: fc.string({ minLength: 1, maxLength: 20 }),
        identityFirstName: fc.string({ minLength: 1, maxLength: 20 }),
        identityDocumentType: fc.constantFrom('national_id', 'passport'),
        identityDocumentNumber: fc.string({ minLength: 1, maxLength: 20 }),
        identityLastName: fc.constantFrom('García', null),
        contactInfoAddressCountry: fc.constantFrom('ES', 'PT'),
        contactInfoPhoneNumbers: fc.array(phone, { maxLength: 3 }),
        contactInfoEmails: fc.array(email, { maxLength: 2 }),
        debts: fc.array(debt, { maxLength: 3 }),
        complianceOptOut: fc.boolean(),
      },
      { requiredKeys: ['externalId', 'identityFirstName', 'identityDocumentType', 'identityDocumentNumber'] },
    );
    const batch = fc.array(debtor, { minLength: 1, maxLength: 4 }).map((debtors) => ({ debtors }));

    /** One field somewhere in the batch replaced by a value the way clients get it wrong (or removed). */
    const mutated = fc.tuple(batch, fc.nat(), fc.nat(), fc.oneof(anyValue, fc.constant(undefined))).map(([body, i, j, value]) => {
      const copy = jsonCopy(body) as { debtors: Record<string, unknown>[] };
      const item = copy.debtors[i % copy.debtors.length];
      const nested = ['debts', 'contactInfoPhoneNumbers', 'contactInfoEmails'].map((k) => item[k] as Record<string, unknown>[] | undefined).find((list) => list?.length);
      const target = j % 2 && nested ? nested[j % nested.length] : item;
      const keys = [...Object.keys(target), 'unknownField'];
      const key = keys[j % keys.length];
      if (value === undefined) delete target[key];
      else target[key] = value;
      return jsonCopy(copy); // what a parsed body can hold (no Infinity, no -0)
    });

    it('accepts every valid batch', () => {
      fc.assert(fc.property(batch, (body) => expect([check(body), slowPath(DebtorBatchDto, body).valid]).toEqual([true, true])), { numRuns: 200 });
    });

    it('gives the transform-and-validate answer for batches with one field wrong, missing or unknown', () => {
      fc.assert(fc.property(mutated, (body) => expect(check(body)).toBe(slowPath(DebtorBatchDto, body).valid)), { numRuns: 1000 });
    });

    it.each([
      ['no debtors', { debtors: [] }],
      ['a debtor that is not an object', { debtors: ['x'] }],
      ['nested arrays', { debtors: [[{ externalId: 'e' }]] }],
      ['debts as an object', { debtors: [{ externalId: 'e', identityFirstName: 'A', identityDocumentType: 't', identityDocumentNumber: 'n', debts: { externalId: 'd' } }] }],
      ['a name of 201 characters', { debtors: [{ externalId: 'e', identityFirstName: 'A'.repeat(201), identityDocumentType: 't', identityDocumentNumber: 'n' }] }],
      ['null for a required field', { debtors: [{ externalId: 'e', identityFirstName: null, identityDocumentType: 't', identityDocumentNumber: 'n' }] }],
      ['a constructor key', { debtors: [{ externalId: 'e', identityFirstName: 'A', identityDocumentType: 't', identityDocumentNumber: 'n', constructor: 1 }] }],
      ['not an object', 'debtors'],
      ['null', null],
    ])('leaves %s to class-validator', (_case, body) => expect(check(body)).toBe(false));
  });

  describe('what it does not compile', () => {
    class Item {
      @IsString() name!: string;
    }
    class WithTransform {
      @Transform(({ value }) => String(value)) @IsString() name!: string;
    }
    class WithConversion {
      @Type(() => Number) @IsInt() n!: number;
    }
    class WithDefault {
      @IsOptional() @IsInt() limit = 50;
    }
    class WithAccessor {
      @IsString() name!: string;
      get upper() {
        return this.name.toUpperCase();
      }
    }
    class NestedWithoutType {
      @ValidateNested() item!: Item;
    }
    class WithPromise {
      @ValidatePromise() @IsString() name!: string;
    }
    @Expose()
    class Exposed {
      @IsString() name!: string;
    }
    class NoRules {
      name!: string;
    }
    class NeedsArguments {
      @IsString() name: string;
      constructor(name: string) {
        this.name = name.trim();
      }
    }
    class HoldsUnsupported {
      @ValidateNested() @Type(() => WithTransform) inner!: WithTransform;
    }

    it.each([WithTransform, WithConversion, WithDefault, WithAccessor, NestedWithoutType, WithPromise, Exposed, NoRules, NeedsArguments, HoldsUnsupported, String, Object, Array] as Class[])('%p', (cls) => {
      expect(validCheckFor(cls)).toBeUndefined();
    });
  });

  describe('what it compiles', () => {
    class Node {
      @IsString() @MaxLength(3) name!: string;
      @IsOptional() @ValidateNested({ each: true }) @Type(() => Node) children?: Node[];
    }
    class Conditional {
      @IsOptional() @IsString() kind?: string;
      @ValidateIf((o: Conditional) => o.kind === 'named') @IsString() name?: string;
    }

    it('follows a class that nests itself', () => {
      const check = validCheckFor(Node)!;
      expect(check({ name: 'a', children: [{ name: 'b', children: [{ name: 'c' }] }] })).toBe(true);
      expect(check({ name: 'a', children: [{ name: 'b', children: [{ name: 'long' }] }] })).toBe(false);
      expect(check({ name: 'a', children: null })).toBe(true);
    });

    it('leaves objects in properties without @Type to class-validator (class-transformer rebuilds them)', () => {
      class Free {
        @IsOptional() @IsObject() meta?: Record<string, unknown>;
        @IsOptional() @IsString({ each: true }) tags?: string[];
      }
      const check = validCheckFor(Free)!;
      const bodies = [{ meta: null, tags: ['a'] }, { meta: { a: 1 } }, { tags: [{ a: 1 }] }];
      expect(bodies.map(check)).toEqual([true, false, false]);
      expect(bodies.map((b) => slowPath(Free, b).valid)).toEqual([true, true, false]);
    });

    it('applies ValidateIf as class-validator does', () => {
      const check = validCheckFor(Conditional)!;
      expect([check({}), check({ kind: 'other', name: 5 }), check({ kind: 'named', name: 'x' }), check({ kind: 'named' })]).toEqual([true, true, true, false]);
      expect([{}, { kind: 'other', name: 5 }, { kind: 'named', name: 'x' }, { kind: 'named' }].map((b) => slowPath(Conditional, b).valid)).toEqual([true, true, true, false]);
    });
  });
});
