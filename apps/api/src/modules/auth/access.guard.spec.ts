import { ForbiddenException } from '@nestjs/common';
import type { Principal } from '../../common/auth/principal';
import { assertAllowed } from './access.guard';

const viewer: Principal = {
  kind: 'user',
  userId: '00000000-0000-4000-8000-000000000001',
  email: 'viewer@example.com',
  role: 'viewer',
  credential: { kind: 'session', sessionId: 's' },
};

describe('assertAllowed', () => {
  it('lets a role through when it grants every permission the route names', () => {
    expect(() => assertAllowed({ kind: 'permission', permissions: ['endpoints:view', 'certs:view'] }, viewer)).not.toThrow();
  });

  it('refuses a role lacking any one of several permissions, naming the one missing', () => {
    for (const permissions of [
      ['endpoints:view', 'users:view'],
      ['users:view', 'endpoints:view'],
    ] as const) {
      expect(() => assertAllowed({ kind: 'permission', permissions }, viewer)).toThrow(
        new ForbiddenException('Your role (viewer) lacks the users:view permission.'),
      );
    }
  });

  it('refuses scanner tokens on permission routes', () => {
    expect(() => assertAllowed({ kind: 'permission', permissions: ['certs:view'] }, { kind: 'scanner', scannerId: 'x' })).toThrow(
      ForbiddenException,
    );
  });
});
