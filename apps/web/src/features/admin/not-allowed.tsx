import type { ReactNode } from 'react';
import { useAuth } from '../../auth/auth-context';
import type { Permission } from '../../auth/permissions';

/**
 * Renders its screen only for a role holding `permission`; any other role gets the heading and a
 * sentence instead, and the screen's loads never start (the API would answer 403 anyway).
 */
export function RequirePermission({ permission, title, children }: { permission: Permission; title: string; children: ReactNode }) {
  const { can } = useAuth();
  if (can(permission)) return <>{children}</>;
  return (
    <>
      <h1>{title}</h1>
      <p role="alert">Not allowed: this screen is for administrators.</p>
    </>
  );
}
