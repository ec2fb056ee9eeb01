import type { UserEntity } from './user.entity';
import type { UserChanges } from './users.repository';

/** What an audit entry says changed: new values of plain fields, and only the fact of a password change. */
export function changedFields(before: UserEntity, changes: UserChanges): Record<string, unknown> {
  const changed: Record<string, unknown> = {};
  for (const field of ['email', 'name', 'role', 'notify', 'disabled'] as const) {
    if (changes[field] !== undefined && changes[field] !== before[field]) changed[field] = changes[field];
  }
  if (changes.passwordHash !== undefined) changed.password = changes.passwordHash === null ? 'removed' : 'changed';
  return changed;
}
