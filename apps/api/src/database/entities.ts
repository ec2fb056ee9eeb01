import { ApiKeyEntity } from '../modules/api-keys/api-key.entity';
import { ScannerEntity } from '../modules/scanners/scanner.entity';
import { UserEntity } from '../modules/users/user.entity';

/** Every entity, listed explicitly so the same list serves the app, migrations and tests. */
export const ENTITIES = [UserEntity, ApiKeyEntity, ScannerEntity];
