import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsEmail, MaxLength } from 'class-validator';

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
