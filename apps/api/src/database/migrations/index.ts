import { InitialSchema1795269600000 } from './1795269600000-InitialSchema';

/** Every migration in order. Landed migrations are immutable: add a new one instead. */
export const MIGRATIONS = [InitialSchema1795269600000];
