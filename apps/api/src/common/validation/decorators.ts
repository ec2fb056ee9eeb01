import { applyDecorators } from '@nestjs/common';
import { isIP } from 'node:net';
import { Transform } from 'class-transformer';
import { cronExpressionProblem, isTag, TAG_RULE } from '@certkeeper/domain';
import { IsEmail, MaxLength, ValidateBy, ValidateIf } from 'class-validator';

/** Shared validation rules, so the same field reads the same way on every route. */

/**
 * The field may be omitted; when it is present, null included, its other rules apply.
 * class-validator's IsOptional also lets null through, which for a NOT NULL column turns
 * `"name": null` into a database error (a 500) instead of the 400 a wrong type deserves. Keep
 * IsOptional for fields where null means something (cleared, or back to the default).
 */
export function IsOmittable(): PropertyDecorator {
  return ValidateIf((_, value) => value !== undefined);
}

/**
 * Skips a property's other rules when it is null (null is a meaningful value: cleared, none), while
 * undefined is still checked: for a field that must be sent, null or a valid value.
 */
export function IsNullable(): PropertyDecorator {
  return ValidateIf((_, value) => value !== null);
}

/** A property refused whenever it is sent, with `message` as its 400 sentence (one that belongs to another route). */
export function IsRefused(message: string): PropertyDecorator {
  return applyDecorators(
    ValidateIf((_, value) => value !== undefined),
    ValidateBy({ name: 'isRefused', validator: { validate: () => false, defaultMessage: () => message } }),
  );
}

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

const DNS_LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/i;

/** A DNS name (labels of letters, digits, `-`, `_`; an optional trailing dot) or an IP literal. */
export function isDnsNameOrIp(value: string): boolean {
  if (isIP(value) !== 0) return true;
  const name = value.endsWith('.') ? value.slice(0, -1) : value;
  return name.length > 0 && name.length <= 253 && name.split('.').every((label) => DNS_LABEL.test(label));
}

export function IsDnsNameOrIp(): PropertyDecorator {
  return ValidateBy({
    name: 'isDnsNameOrIp',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && isDnsNameOrIp(value),
      defaultMessage: (args) => `${args?.property ?? 'value'} must be a DNS name or an IP address`,
    },
  });
}

export function IsIpAddress(): PropertyDecorator {
  return ValidateBy({
    name: 'isIpAddress',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && isIP(value) !== 0,
      defaultMessage: (args) => `${args?.property ?? 'value'} must be an IPv4 or IPv6 address`,
    },
  });
}

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

export function IsHttpUrl(): PropertyDecorator {
  return ValidateBy({
    name: 'isHttpUrl',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && value.length <= 2048 && isHttpUrl(value),
      defaultMessage: (args) => `${args?.property ?? 'value'} must be an http or https URL`,
    },
  });
}

/** An array of tags (see isTag in libs/domain). */
export function IsTagList(): PropertyDecorator {
  return ValidateBy({
    name: 'isTagList',
    validator: {
      validate: (value: unknown) => Array.isArray(value) && value.every(isTag),
      defaultMessage: (args) => `${args?.property ?? 'tags'} must be strings of ${TAG_RULE}`,
    },
  });
}

/** An IP literal, as Node reads one: the address a connection reached, never a name. */
export function IsIpLiteral(message: string): PropertyDecorator {
  return ValidateBy(
    { name: 'isIpLiteral', validator: { validate: (value: unknown) => typeof value === 'string' && isIP(value) !== 0 } },
    { message },
  );
}

/**
 * null, or a string of at most `max` characters. One rule rather than Nullable() and IsString(),
 * so that a rule across fields on the same property (WhenSuccessIs) still sees a null.
 */
export function IsNullableString(max: number, message: string): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isNullableString',
      validator: { validate: (value: unknown) => value === null || (typeof value === 'string' && value.length <= max) },
    },
    { message },
  );
}
