import { describe, expect, it } from 'vitest';
import { isStoreUnavailable, isUniqueViolation } from '../../../../daemon/store/db.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('store error classification', () => {
  it('calls a database that cannot be reached unavailable (the HTTP edge answers 503), and nothing else', () => {
    expect(isStoreUnavailable(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'))).toBe(true);
    expect(isStoreUnavailable(withCode('terminating connection due to administrator command', '57P01'))).toBe(true);
    expect(isStoreUnavailable(withCode('the database system is starting up', '57P03'))).toBe(true);
    expect(isStoreUnavailable(withCode('connection failure', '08006'))).toBe(true);
    expect(isStoreUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isStoreUnavailable(withCode('SQLITE_BUSY: database is locked', 'SQLITE_BUSY'))).toBe(true);
    // Bugs and bad data stay 500s / 4xx: they will not heal by retrying.
    expect(isStoreUnavailable(withCode('syntax error at or near "SELEC"', '42601'))).toBe(false);
    expect(isStoreUnavailable(withCode('duplicate key value violates unique constraint', '23505'))).toBe(false);
    expect(isStoreUnavailable('ECONNREFUSED')).toBe(false);
  });

  it('recognises a unique violation from either engine', () => {
    expect(isUniqueViolation(withCode('duplicate key value violates unique constraint "users_email_lower"', '23505'))).toBe(true);
    expect(isUniqueViolation(withCode('SQLITE_CONSTRAINT: UNIQUE constraint failed: users.email', 'SQLITE_CONSTRAINT'))).toBe(true);
    expect(isUniqueViolation(withCode('SQLITE_CONSTRAINT: CHECK constraint failed: close > 0', 'SQLITE_CONSTRAINT'))).toBe(false);
  });
});
