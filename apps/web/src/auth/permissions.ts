// The API's own role table (libs/domain/src/roles.ts): the interface offers what the API allows.
// It only decides which screens and actions to show; the API checks every request regardless.
export { roleHasPermission as can, type Permission } from '@certkeeper/domain/roles';
