import { getMetadataStorage, ValidationArguments, ValidationTypes, ValidatorConstraintInterface } from 'class-validator';
import { TransformationType } from 'class-transformer';
import type { MetadataStorage as TransformerStorage } from 'class-transformer/types/MetadataStorage';

// class-transformer does not export its metadata storage from the package index.
const transformerStorage = (require('class-transformer/cjs/storage') as { defaultMetadataStorage: TransformerStorage }).defaultMetadataStorage;

type Class = new () => object;

let enabled = false;

/**
 * Turns the compiled checks on for this process (the runtime patch `compiled-validation`). Off,
 * validCheckFor and queryParserFor answer undefined: every body and query takes class-transformer
 * and class-validator, which the compiled checks only ever short-cut for valid values.
 */
export function enableCompiledValidation(): void {
  enabled = true;
}
type ValidationMetadata = ReturnType<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>[number];

/** Answers true only when the plain value is valid; false means "ask class-validator" (it may still be valid). */
export type ValidCheck = (plain: unknown) => boolean;

/**
 * A compiled check that a plain JSON value (a parsed request body) is valid for a DTO class, built
 * from the class's own class-validator rules and run with their own constraint instances, so a
 * value it accepts is one `validate(plainToInstance(cls, value))` accepts with the gateway's
 * options (whitelist, forbidNonWhitelisted, forbidUnknownValues, no groups). It builds no error
 * objects and no class instances: that is what made the 500-debtor batch's validation cost more
 * than the rest of the gateway's work on it (docs/adr/0036).
 *
 * It is deliberately partial. It never explains a refusal (false sends the value through
 * class-transformer and class-validator, which produce the issues), and it only compiles classes
 * whose transformation changes nothing: no @Transform, @Expose or @Exclude, @Type only on
 * @ValidateNested properties naming a class, no property initialisers or accessors, no promise
 * validation. Any other class gets `undefined` and is always validated the slow way.
 */
export function validCheckFor(cls: Class): ValidCheck | undefined {
  if (!enabled) return undefined;
  if (!compiled.has(cls)) compiled.set(cls, compile(cls, undefined, new Map()));
  return compiled.get(cls);
}

const compiled = new Map<Class, ValidCheck | undefined>();

/** The valid query's class instance, as the transform-and-validate path builds it; undefined means "ask class-validator". */
export type QueryParser = (query: unknown) => object | undefined;

/**
 * The same idea for a list's query DTO, whose fields are converted (`limit` to a number, a comma
 * list to an array, a cursor to the id it stands for) by @Transform and whose `limit` has a
 * default. It does what `plainToInstance` does with a parsed query string (string and string-array
 * values only): a new instance of the class, each field of the query passed through the property's
 * @Transform functions (with the arguments class-transformer gives them) and set; then the compiled
 * check of that instance. A valid query yields the instance the slow path would return; anything
 * else (an unknown field, a value that fails, a transform that throws) yields undefined and takes
 * the slow path, which names the problems. Classes with @Type, @Expose, @Exclude, accessors,
 * methods, nested validation or versioned/grouped transforms are not compiled.
 */
export function queryParserFor(cls: Class): QueryParser | undefined {
  if (!enabled) return undefined;
  if (!compiledQueries.has(cls)) compiledQueries.set(cls, compileQuery(cls));
  return compiledQueries.get(cls);
}

const compiledQueries = new Map<Class, QueryParser | undefined>();

/** What class-transformer hands a @Transform function as `options` when plainToInstance gets none (its defaultOptions). */
const TRANSFORM_OPTIONS = Object.freeze({
  enableCircularCheck: false,
  enableImplicitConversion: false,
  excludeExtraneousValues: false,
  excludePrefixes: undefined,
  exposeDefaultValues: false,
  exposeUnsetFields: true,
  groups: undefined,
  ignoreDecorators: false,
  strategy: undefined,
  targetMaps: undefined,
  version: undefined,
});

type TransformFn = (params: { value: unknown; key: string; obj: unknown; type: TransformationType; options: typeof TRANSFORM_OPTIONS }) => unknown;

function compileQuery(cls: Class): QueryParser | undefined {
  try {
    assertNoTransformerMetadata(cls);
    new cls(); // a constructor that needs arguments: the slow path's
    const metadatas = getMetadataStorage().getTargetValidationMetadatas(cls, undefined as unknown as string, false, false, undefined);
    if (metadatas.length === 0) return undefined;
    const grouped = getMetadataStorage().groupByPropertyName(metadatas);
    const allowed = new Set(Object.keys(grouped));
    const properties = Object.entries(grouped).map(([name, list]) => compileProperty(cls, name, list, new Map(), { transforms: true }));
    const transforms = new Map<string, TransformFn[]>(
      [...allowed].map((name) => [name, transformsOf(cls, name)]),
    );
    return (query) => {
      if (query === null || typeof query !== 'object' || Array.isArray(query)) return undefined;
      const source = query as Record<string, unknown>;
      try {
        const instance = new cls() as Record<string, unknown>;
        for (const key of Object.keys(source)) {
          const fns = transforms.get(key);
          if (!fns) return undefined; // unknown (or __proto__, constructor): forbidNonWhitelisted's answer
          const raw = source[key];
          // class-transformer copies an array before the transforms see it.
          let value: unknown = typeof raw === 'string' ? raw : isStringArray(raw) ? [...raw] : NOT_A_QUERY_VALUE;
          if (value === NOT_A_QUERY_VALUE) return undefined;
          for (const fn of fns) value = fn({ value, key, obj: source, type: TransformationType.PLAIN_TO_CLASS, options: TRANSFORM_OPTIONS });
          instance[key] = value; // exposeUnsetFields: undefined is set too
        }
        return acceptsObject(instance, properties, allowed) ? instance : undefined;
      } catch {
        return undefined; // a transform that throws: the slow path fails the same way it always did
      }
    };
  } catch {
    return undefined;
  }
}

const NOT_A_QUERY_VALUE = Symbol('not a query value');

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** A property's PLAIN_TO_CLASS @Transform functions, in class-transformer's order; grouped or versioned ones are not compiled. */
function transformsOf(cls: Class, name: string): TransformFn[] {
  return transformerStorage.findTransformMetadatas(cls, name, TransformationType.PLAIN_TO_CLASS).map((metadata) => {
    const options = metadata.options ?? {};
    if (options.groups?.length || options.since !== undefined || options.until !== undefined) throw new Unsupported();
    return metadata.transformFn as TransformFn;
  });
}

/** No @Type, @Expose or @Exclude, no strategy, and no accessors or methods for class-transformer to skip. */
function assertNoTransformerMetadata(cls: Class): void {
  if (transformerStorage.getStrategy(cls) !== 'none') throw new Unsupported();
  if (transformerStorage.getExposedMetadatas(cls).length || transformerStorage.getExcludedMetadatas(cls).length) throw new Unsupported();
  for (let proto = cls.prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    if (Object.getOwnPropertyNames(proto).some((name) => name !== 'constructor')) throw new Unsupported();
  }
}

/** Thrown while compiling a class the check does not reproduce. */
class Unsupported extends Error {}

interface Rule {
  validate(value: unknown, object: Record<string, unknown>): boolean;
}

interface PropertyCheck {
  name: string;
  /** IsOptional / ValidateIf: when one answers false, nothing else of the property is checked. */
  conditions: ((object: Record<string, unknown>, value: unknown) => boolean)[];
  rules: Rule[];
  /** The class of a @ValidateNested property (from its @Type). */
  nested?: ValidCheck;
}

function compile(cls: Class, schema: string | undefined, compiling: Map<Class, ValidCheck>): ValidCheck | undefined {
  const existing = compiling.get(cls);
  if (existing) return existing;
  let properties: PropertyCheck[] = [];
  // Registered before the properties are compiled, so a class nesting itself finds its own check.
  const check: ValidCheck = (plain) => isPlainObject(plain) && acceptsObject(plain, properties, allowed);
  compiling.set(cls, check);
  const allowed = new Set<string>();
  try {
    assertPlainTransformation(cls);
    const metadatas = getMetadataStorage().getTargetValidationMetadatas(cls, schema as string, false, false, undefined);
    if (metadatas.length === 0) throw new Unsupported(); // forbidUnknownValues refuses every value
    const grouped = getMetadataStorage().groupByPropertyName(metadatas);
    properties = Object.entries(grouped).map(([name, list]) => {
      allowed.add(name);
      return compileProperty(cls, name, list, compiling);
    });
    return check;
  } catch {
    // Unsupported, or a class that cannot even be built without arguments: the slow path handles it
    // as it always did, so no request can fail here.
    compiling.delete(cls);
    return undefined;
  }
}

/** class-transformer must copy a valid value as it is, so validating the plain value is the same. */
function assertPlainTransformation(cls: Class): void {
  assertNoTransformerMetadata(cls);
  if (Object.keys(new cls()).length) throw new Unsupported(); // initialisers add values the plain object lacks
}

/**
 * `transforms`: the property's @Transform functions are applied before the check (a query), so the
 * check sees their result; otherwise a property with any is not compiled (a body).
 */
function compileProperty(cls: Class, name: string, list: ValidationMetadata[], compiling: Map<Class, ValidCheck>, mode = { transforms: false }): PropertyCheck {
  if (!mode.transforms && transformerStorage.findTransformMetadatas(cls, name, TransformationType.PLAIN_TO_CLASS).length) throw new Unsupported();
  const property: PropertyCheck = { name, conditions: [], rules: [] };
  const type = transformerStorage.findTypeMetadata(cls, name);
  for (const metadata of list) {
    switch (metadata.type) {
      case ValidationTypes.WHITELIST:
        break;
      case ValidationTypes.CONDITIONAL_VALIDATION:
        property.conditions.push(metadata.constraints[0]);
        break;
      case ValidationTypes.IS_DEFINED:
      case ValidationTypes.CUSTOM_VALIDATION:
        property.rules.push(...compileRules(cls, name, metadata));
        break;
      case ValidationTypes.NESTED_VALIDATION: {
        if (mode.transforms || !type?.typeFunction || type.options?.discriminator) throw new Unsupported();
        const nestedClass = type.typeFunction({ newObject: undefined, object: {}, property: name }) as Class;
        // class-validator looks nested rules up under the parent's name as schema.
        const nested = compile(nestedClass, cls.name, compiling);
        if (!nested) throw new Unsupported();
        property.nested = nested;
        break;
      }
      default: // promise validation, or a type class-validator added later
        throw new Unsupported();
    }
  }
  // @Type elsewhere converts values (e.g. strings to numbers): the plain value is not what is validated.
  if (type && !property.nested) throw new Unsupported();
  return property;
}

function compileRules(cls: Class, name: string, metadata: ValidationMetadata): Rule[] {
  return getMetadataStorage()
    .getTargetValidatorConstraints(metadata.constraintCls)
    .map((constraint) => {
      if (constraint.async) throw new Unsupported();
      const instance: ValidatorConstraintInterface = constraint.instance;
      const each = metadata.each;
      const validateIf = metadata.validateIf;
      // One arguments object per rule, refilled for each call: validators are synchronous and keep no reference.
      const args: ValidationArguments = { targetName: cls.name, property: name, object: {}, value: undefined, constraints: metadata.constraints };
      // class-validator counts any truthy answer as valid; only `true` is taken here (a promise is truthy too).
      return {
        validate(value: unknown, object: Record<string, unknown>): boolean {
          if (validateIf && !validateIf(object, value)) return true;
          args.object = object;
          args.value = value;
          if (each && Array.isArray(value)) return value.every((item) => instance.validate(item, args) === true);
          return instance.validate(value, args) === true;
        },
      };
    });
}

function acceptsObject(object: Record<string, unknown>, properties: PropertyCheck[], allowed: Set<string>): boolean {
  for (const key of Object.keys(object)) if (!allowed.has(key)) return false; // whitelist + forbidNonWhitelisted
  for (const property of properties) {
    const value = object[property.name];
    // Objects without @Type are rebuilt by class-transformer (even where validation is skipped): the slow path's.
    if (!property.nested && !isFlatValue(value)) return false;
    if (!property.conditions.every((condition) => condition(object, value))) continue;
    for (const rule of property.rules) if (!rule.validate(value, object)) return false;
    if (property.nested && value !== undefined) {
      const nested = property.nested;
      if (Array.isArray(value) ? !value.every(nested) : !nested(value)) return false;
    }
  }
  return true;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A primitive, or an array of primitives: class-transformer passes these through unchanged. */
function isFlatValue(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  return Array.isArray(value) && value.every((item) => item === null || typeof item !== 'object');
}
