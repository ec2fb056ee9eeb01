import { plainToInstance } from 'class-transformer';
import {
  IsDefined,
  IsIn,
  IsOptional,
  IsString,
  MaxLength,
  registerDecorator,
  ValidateBy,
  ValidateNested,
  validateSync,
} from 'class-validator';
import { compileAcceptance } from './compiled-acceptance';

/** A rule validateSync leaves out: it is asynchronous. */
const NeverAsked = (): PropertyDecorator => (target, propertyName) =>
  registerDecorator({
    name: 'neverAsked',
    target: target.constructor,
    propertyName: propertyName as string,
    async: true,
    validator: { validate: () => Promise.resolve(false) },
  });

class Inner {
  @IsString() name!: string;
}

class Sample {
  @IsIn(['a', 'b']) kind!: string;
  @IsOptional() @MaxLength(3, { each: true }) @IsString({ each: true }) tags?: string[];
  @IsDefined() required!: unknown;
  @ValidateBy({ name: 'sameAsKind', validator: { validate: (value, args) => value === (args?.object as Sample).kind } })
  echo!: string;
  @NeverAsked() later!: unknown;
  @IsOptional() @ValidateNested() inner: Inner | null = null;
}

const accepted = compileAcceptance(Sample);
const valid = { kind: 'a', tags: ['x', 'yz'], required: 0, echo: 'a', later: 1 };

/** What class-validator's validateSync says of `raw` as plainToInstance makes it, with the whitelist. */
const classValidatorAccepts = (raw: object) =>
  validateSync(plainToInstance(Sample, raw, { exposeDefaultValues: true }), { whitelist: true }).length === 0;

describe('compileAcceptance', () => {
  it('accepts what every rule allows, as the instance plainToInstance gives, without the properties that have no rule', () => {
    const instance = accepted({ ...valid, unknown: true });
    expect(instance).toBeInstanceOf(Sample);
    expect(instance).toStrictEqual(plainToInstance(Sample, valid, { exposeDefaultValues: true }));
    expect(instance).toMatchObject({ inner: null });
    expect(classValidatorAccepts(valid)).toBe(true);
  });

  it.each<[string, object]>([
    ['a value outside a list', { kind: 'c' }],
    ['an item breaking an `each` rule', { tags: ['x', 'long'] }],
    ['an item of another type', { tags: ['x', 7] }],
    ['a missing defined property', { required: undefined }],
    ['a rule reading the whole object', { echo: 'b' }],
  ])('refuses %s, as class-validator does', (_label, change) => {
    const raw = { ...valid, ...change };
    expect(accepted(raw)).toBeNull();
    expect(classValidatorAccepts(raw)).toBe(false);
  });

  it('skips the rules of a property whose conditions fail, and the asynchronous ones, as validateSync does', () => {
    for (const raw of [
      { ...valid, tags: undefined },
      { ...valid, tags: null },
      { ...valid, later: 'anything' },
    ]) {
      expect(accepted(raw)).not.toBeNull();
      expect(classValidatorAccepts(raw)).toBe(true);
    }
  });

  it('leaves a nested object to class-validator, valid or not', () => {
    expect(accepted({ ...valid, inner: { name: 'n' } })).toBeNull();
    expect(accepted({ ...valid, inner: { name: 1 } })).toBeNull();
  });
});
