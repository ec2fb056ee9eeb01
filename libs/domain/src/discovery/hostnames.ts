import { parseAddressValue } from './ranges';

/**
 * The names a discovered service goes by (docs/api-contract.md section 8): its address's
 * reverse-DNS name, then the leaf certificate's DNS SANs, lower case, each once. IP, e-mail and
 * URI SANs are not host names and are left out.
 */
export function discoveryHostnames(reverseName: string | null, sans: readonly string[]): string[] {
  const names = reverseName ? [reverseName.toLowerCase()] : [];
  for (const san of sans) {
    if (parseAddressValue(san) === null && !san.includes('@') && !san.includes('://')) names.push(san.toLowerCase());
  }
  return [...new Set(names)];
}
