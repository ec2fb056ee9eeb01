import { BadRequestException, ValidationPipe, type ValidationError } from '@nestjs/common';

/**
 * The one global validation pipe: unknown properties, wrong types and out-of-range values are
 * all 400, with one plain-text line per problem.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new BadRequestException(flatten(errors)),
  });
}

function flatten(errors: ValidationError[], parentPath = ''): string[] {
  return errors.flatMap((error) => {
    const path = parentPath ? `${parentPath}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => message.replace(error.property, path));
    return [...own, ...flatten(error.children ?? [], path)];
  });
}
