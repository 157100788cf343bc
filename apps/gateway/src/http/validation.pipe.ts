import { ArgumentMetadata, ValidationError, ValidationPipe, ValidationPipeOptions } from '@nestjs/common';
import { AppError, ErrorIssue } from '@dc/contracts';
import { queryParserFor, validCheckFor } from '@dc/validation';

/** Flattens class-validator's tree into `{message, path}` with paths like `debtors[3].debts[0].currency`. */
export function toIssues(errors: ValidationError[], parent = ''): ErrorIssue[] {
  const issues: ErrorIssue[] = [];
  for (const error of errors) {
    const path = /^\d+$/.test(error.property) ? `${parent}[${error.property}]` : parent ? `${parent}.${error.property}` : error.property;
    for (const message of Object.values(error.constraints ?? {})) {
      issues.push({ message: message.replace(error.property, path), path });
    }
    if (error.children?.length) issues.push(...toIssues(error.children, path));
  }
  return issues;
}

/**
 * Validates and converts query and body DTOs from libs/contracts. Unknown body fields are refused
 * (a misspelt field is a bug the client wants to hear about); every problem is listed at once.
 */
class DtoValidationPipe extends ValidationPipe {
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'query') {
      // A valid list query becomes its DTO without class-transformer and class-validator (docs/adr/0037).
      const parse = metadata.metatype && queryParserFor(metadata.metatype as new () => object);
      const parsed = parse ? parse(value) : undefined;
      return parsed ? Promise.resolve(parsed) : super.transform(value, metadata);
    }
    if (metadata.type !== 'body') return super.transform(value, metadata);
    // Unreadable bodies and NUL characters were refused before (RequestInputGuard).
    // A missing body is validated as an empty object, so the client hears which fields are required.
    const body = value === undefined ? {} : value;
    // A valid body goes on as parsed: class-transformer would copy it unchanged (docs/adr/0036).
    // Anything else takes class-validator's path, which names every problem.
    const check = metadata.metatype && validCheckFor(metadata.metatype as new () => object);
    return check && check(body) ? Promise.resolve(body) : super.transform(body, metadata);
  }
}

/** The gateway's class-validator options (a test gives them to Nest's own pipe to compare). */
export const VALIDATION_OPTIONS: ValidationPipeOptions = {
  transform: true,
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  stopAtFirstError: true,
  validationError: { target: false, value: false },
  exceptionFactory: (errors: ValidationError[]) => {
    const issues = toIssues(errors);
    const summary = issues.length === 1 ? issues[0].message : `${issues.length} problems: ${issues.map((i) => i.message).join('; ')}`;
    return AppError.validation(summary.length > 500 ? `${issues.length} problems in the request; see issues.` : summary, issues);
  },
};

export function createValidationPipe(): ValidationPipe {
  return new DtoValidationPipe(VALIDATION_OPTIONS);
}
