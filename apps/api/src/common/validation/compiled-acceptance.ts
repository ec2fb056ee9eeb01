import { getMetadataStorage, type ValidationArguments, ValidationTypes } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

/** A constraint of one property, as class-validator's executor calls it. */
interface Constraint {
  validate(value: unknown, args: ValidationArguments): unknown;
  each: boolean;
  constraints: unknown[];
}

/** One property's rules, in the executor's order: the conditions deciding whether it is checked, then its constraints. */
interface PropertyRules {
  name: string;
  conditions: ((object: object, value: unknown) => boolean)[];
  constraints: Constraint[];
  /** ValidateNested: a value other than undefined is for class-validator. */
  nested: boolean;
}

/**
 * A DTO's class-validator rules, read once from its decorators, as a function that accepts a plain
 * object when every rule validateSync would apply to it holds (with `whitelist` and no other
 * option), answering the instance that plainToInstance (with `exposeDefaultValues`) and the
 * whitelist would give; and null when it cannot say yes (a rule failed, a nested object is
 * present, a check answered a promise), for the caller to ask class-validator, which words the
 * problems.
 *
 * The rules stay the decorators': their constraint functions are called as the executor calls
 * them (a property whose conditions fail is not checked, `each` checks every item, asynchronous
 * constraints are left out as validateSync leaves them out). What is skipped is the generic
 * machinery: class-transformer walking every value and class-validator looking its metadata up
 * and building an error object per property on every call. On scan results, the hot path of
 * ingest, that machinery was about a quarter of the API's CPU per result (docs/performance.md,
 * "Ingest"). Only for DTOs whose properties carry no class-transformer decorator but `@Type` on
 * nested ones: `scan-results.pipe.spec.ts` checks the scan result DTOs against class-validator.
 */
export function compileAcceptance<T extends object>(dto: new () => T): (raw: Record<string, unknown>) => T | null {
  const rules = propertyRules(dto);
  return (raw) => {
    const created = new dto();
    const instance = created as Record<string, unknown>;
    // Only the properties with rules (the whitelist), and an undefined one keeps its default (exposeDefaultValues).
    for (const { name } of rules) if (Object.hasOwn(raw, name) && raw[name] !== undefined) instance[name] = raw[name];
    for (const property of rules) {
      const value = instance[property.name];
      if (!property.conditions.every((condition) => condition(instance, value))) continue;
      if (property.nested && value !== undefined) return null;
      const args: ValidationArguments = { targetName: dto.name, property: property.name, object: instance, value, constraints: [] };
      for (const constraint of property.constraints) {
        args.constraints = constraint.constraints;
        const items = constraint.each && Array.isArray(value) ? value : [value];
        for (const item of items) {
          const valid = constraint.validate(item, args);
          if (!valid || valid instanceof Promise) return null;
        }
      }
    }
    return created;
  };
}

function propertyRules(dto: new () => object): PropertyRules[] {
  const storage = getMetadataStorage();
  const metadatas: ValidationMetadata[] = storage.getTargetValidationMetadatas(dto, '', false, false);
  if (metadatas.length === 0) throw new Error(`${dto.name} has no validation rules to compile`);
  const byName = new Map<string, PropertyRules>();
  for (const metadata of metadatas) {
    const rules = byName.get(metadata.propertyName) ?? { name: metadata.propertyName, conditions: [], constraints: [], nested: false };
    byName.set(metadata.propertyName, rules);
    switch (metadata.type) {
      case ValidationTypes.CONDITIONAL_VALIDATION:
        rules.conditions.push(metadata.constraints[0] as (object: object, value: unknown) => boolean);
        break;
      case ValidationTypes.IS_DEFINED:
      case ValidationTypes.CUSTOM_VALIDATION:
        for (const constraint of storage.getTargetValidatorConstraints(metadata.constraintCls)) {
          if (constraint.async) continue;
          const instance = constraint.instance as { validate(value: unknown, args: ValidationArguments): unknown };
          rules.constraints.push({
            validate: (value, args) => instance.validate(value, args),
            each: metadata.each ?? false,
            constraints: metadata.constraints,
          });
        }
        break;
      case ValidationTypes.NESTED_VALIDATION:
      case ValidationTypes.PROMISE_VALIDATION:
        rules.nested = true;
        break;
      case ValidationTypes.WHITELIST:
        break;
      default:
        throw new Error(`${dto.name}.${metadata.propertyName}: validation of type ${metadata.type} is not compiled`);
    }
  }
  return [...byName.values()];
}
