import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { cronExpressionProblem } from '@certkeeper/domain';
import { IsEmail, MaxLength, ValidateBy } from 'class-validator';

/** Shared validation rules, so the same field reads the same way on every route. */

/** An e-mail address, trimmed and lower-cased so uniqueness is case-insensitive. */
export function IsNormalisedEmail(): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toLowerCase() : value)),
    IsEmail({}, { message: 'email must be an e-mail address' }),
    MaxLength(320),
  );
}

/** Integer query parameters arrive as strings; convert only well-formed integers. */
export function ToInteger(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value));
}

/** Boolean query parameters arrive as strings. */
export function ToBoolean(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value));
}

/** A standard 5-field cron expression, checked by the domain library the agents share. */
export function IsCronExpression(): PropertyDecorator {
  return ValidateBy({
    name: 'isCronExpression',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && cronExpressionProblem(value) === null,
      defaultMessage: (args) =>
        `${args?.property ?? 'value'} must be a 5-field cron expression: ${typeof args?.value === 'string' ? cronExpressionProblem(args.value) : 'not a string'}`,
    },
  });
}
