import { QueryFailedError } from 'typeorm';
import { isDatabaseUnreachable, isUniqueViolation } from './errors';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
const failedQuery = (driverError: Error) => new QueryFailedError('SELECT 1', [], driverError);

describe('isDatabaseUnreachable', () => {
  it.each([
    ['a refused connection', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a refused connection to every address of a name', new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')])],
    ['the connect deadline', new Error('timeout exceeded when trying to connect')],
    ['a connection dropped mid-query', failedQuery(new Error('Connection terminated unexpectedly'))],
    ['a fast shutdown ending the session (57P01)', failedQuery(withCode('terminating connection due to administrator command', '57P01'))],
    ['a server starting up (57P03)', withCode('the database system is starting up', '57P03')],
    ['a connection exception (class 08)', failedQuery(withCode('connection failure', '08006'))],
    ['a database closed to connections (55000)', withCode('database "certkeeper" is not currently accepting connections', '55000')],
    ['a server with every connection slot taken (53300)', withCode('sorry, too many clients already', '53300')],
  ])('is true for %s', (_, error) => {
    expect(isDatabaseUnreachable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', failedQuery(withCode('duplicate key value', '23505'))],
    ['another object_not_in_prerequisite_state (55000)', failedQuery(withCode('cannot refresh materialized view concurrently', '55000'))],
    ['a statement timeout', failedQuery(withCode('canceling statement due to statement timeout', '57014'))],
    ['a syntax error', failedQuery(withCode('syntax error at or near "SELEC"', '42601'))],
    ['a programming error', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['something that is not an error', 'ECONNREFUSED'],
  ])('is false for %s', (_, error) => {
    expect(isDatabaseUnreachable(error)).toBe(false);
  });
});

describe('isUniqueViolation', () => {
  it('names the constraint when asked', () => {
    const error = failedQuery(Object.assign(withCode('duplicate key value', '23505'), { constraint: 'users_email_key' }));
    expect([isUniqueViolation(error), isUniqueViolation(error, 'users_email_key'), isUniqueViolation(error, 'other')]).toEqual([
      true,
      true,
      false,
    ]);
  });
});
