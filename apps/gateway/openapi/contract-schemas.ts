import { getMetadataStorage, ValidationTypes } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { createGenerator, SchemaGenerator } from 'ts-json-schema-generator';
import path from 'node:path';
import type { SchemaSource } from './openapi-document';
import { discriminate, DISCRIMINATED_UNIONS, refineView, VIEW_REFINEMENTS } from './view-refinements';

type Schema = Record<string, unknown>;

const REF_PREFIX = '#/components/schemas/';
// class-transformer keeps @Type() metadata here (not in its public typings).
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as { defaultMetadataStorage: import('class-transformer/types/MetadataStorage').MetadataStorage };

/**
 * JSON schemas straight from libs/contracts: request DTOs from their class-validator metadata
 * (so limits, patterns and enums are the ones enforced), response types from their TypeScript
 * declarations. Nothing is written twice.
 */
export class ContractSchemas implements SchemaSource {
  private readonly collected: Record<string, Schema> = {};
  private readonly dtos: Record<string, Schema>;
  private readonly types: SchemaGenerator;

  constructor(root: string) {
    this.dtos = validationMetadatasToSchemas({
      refPointerPrefix: REF_PREFIX,
      // Lets nested DTOs (@ValidateNested + @Type) resolve to their own schemas.
      classTransformerMetadataStorage: defaultMetadataStorage,
      additionalConverters: {
        isCurrencyCode: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 currency code' },
        isCalendarDate: { type: 'string', format: 'date', description: 'A day that exists (2024-02-29 yes, 2023-02-29 no).' },
        isIsoDateOrDateTime: {
          type: 'string',
          description: 'A day that exists, optionally with a time of day that exists and an offset (2026-02-30 and T24:00 are refused).',
        },
        // The cursor is decoded by the DTO (common/query-fields.ts); the client sends an opaque string.
        isPageCursor: { maxLength: 200, type: 'string' },
        hasAtMostFourDecimals: { type: 'number', description: 'At most 4 decimal places; at most 99999999999.9999, the largest amount a JSON number carries exactly.' },
      },
    }) as Record<string, Schema>;
    acceptNullWhereSkipped(this.dtos);
    this.types = createGenerator({
      path: path.join(root, 'libs/contracts/src/**/*.ts'),
      tsconfig: path.join(root, 'tsconfig.json'),
      type: '*',
      expose: 'export',
      topRef: true,
      skipTypeCheck: true,
      jsDoc: 'basic',
      additionalProperties: true,
    });
  }

  dtoSchema(name: string, options: { collect?: boolean } = {}): Schema {
    const schema = this.dtos[name];
    if (!schema) throw new Error(`No class-validator metadata for DTO ${name}: is it exported from libs/contracts?`);
    if (options.collect === false) return schema;
    this.collected[name] = schema;
    for (const nested of JSON.stringify(schema).matchAll(/#\/components\/schemas\/(\w+)/g)) {
      if (!this.collected[nested[1]] && this.dtos[nested[1]]) this.dtoSchema(nested[1]);
    }
    return schema;
  }

  typeSchema(name: string): Schema {
    if (this.collected[name]) return this.collected[name];
    const generated = this.types.createSchema(name) as { definitions?: Record<string, Schema> };
    const text = JSON.stringify(generated.definitions ?? {}).replaceAll('#/definitions/', REF_PREFIX);
    for (const [key, schema] of Object.entries(JSON.parse(text) as Record<string, Schema>)) {
      this.collected[key] ??= this.dtos[key] ?? schema;
    }
    return this.collected[name];
  }

  /** The collected schemas, refined (view-refinements.ts): enums, formats, discriminated unions. */
  all(): Record<string, Schema> {
    const schemas = structuredClone(this.collected);
    for (const name of Object.keys(VIEW_REFINEMENTS)) {
      if (!schemas[name]) throw new Error(`VIEW_REFINEMENTS names ${name}, which no documented route returns`);
    }
    for (const [name, schema] of Object.entries(schemas)) refineView(name, schema);
    for (const [name, property] of Object.entries(DISCRIMINATED_UNIONS)) {
      if (!schemas[name]) throw new Error(`DISCRIMINATED_UNIONS names ${name}, which no documented route returns`);
      schemas[name] = discriminate(name, schemas[name], property, schemas);
    }
    return schemas;
  }
}

/**
 * class-validator-jsonschema ignores @ValidateIf. A field whose condition skips null but still
 * checks an absent value (`@ValidateIf((_, v) => v !== null)`: "null discards the column") is
 * required and may be null. Read from the condition itself, so the document says what the pipe
 * does. (@IsOptional is a condition too, skipping both: such fields are left as they are.)
 */
function acceptNullWhereSkipped(dtos: Record<string, Schema>): void {
  const storage = getMetadataStorage() as unknown as { validationMetadatas: Map<unknown, ValidationMetadata[]> };
  for (const metadatas of storage.validationMetadatas.values()) {
    for (const meta of metadatas) {
      if (meta.type !== ValidationTypes.CONDITIONAL_VALIDATION) continue;
      const condition = meta.constraints[0] as (object: object, value: unknown) => boolean;
      const dto = dtos[(meta.target as { name: string }).name] as { properties?: Record<string, Schema>; required?: string[] } | undefined;
      const property = dto?.properties?.[meta.propertyName];
      if (!dto || !property || condition({}, null) || !condition({}, undefined)) continue;
      if (Array.isArray(property.enum)) property.enum = [...(property.enum as unknown[]), null];
      if (typeof property.type === 'string') property.type = [property.type, 'null'];
      if (!dto.required?.includes(meta.propertyName)) dto.required = [...(dto.required ?? []), meta.propertyName];
    }
  }
}
