import { DefaultNamingStrategy, type NamingStrategyInterface } from 'typeorm';

const snake = (text: string): string => text.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/** camelCase properties, snake_case columns: entities stay readable, SQL stays conventional. */
export class SnakeNamingStrategy extends DefaultNamingStrategy implements NamingStrategyInterface {
  override columnName(propertyName: string, customName: string | undefined, embeddedPrefixes: string[]): string {
    return customName ?? snake([...embeddedPrefixes, propertyName].join('_'));
  }
}
