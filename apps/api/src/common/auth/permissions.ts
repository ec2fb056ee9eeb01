// The role table lives in the domain library, shared with the web interface (one home).
export { PERMISSIONS, ROLES, ROLE_PERMISSIONS, roleHasPermission, type Permission, type Role } from '@certkeeper/domain/roles';
