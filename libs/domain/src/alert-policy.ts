/**
 * How alerts fit certificates' lifetimes and renewals (docs/api-contract.md sections 15 and 16):
 * lifetime-aware thresholds, the CA's renewal information, and how long a stored renewal waits
 * before it counts as not deployed.
 */
export interface AlertPolicy {
  lifetimeAware: boolean;
  lifetimeFraction: number;
  renewalInfo: boolean;
  supersededAfterHours: number;
}

/** SPEC's behaviour: plain day thresholds; renewal information asked; a renewal unused for a day is reported. */
export const DEFAULT_ALERT_POLICY: Readonly<AlertPolicy> = Object.freeze({
  lifetimeAware: false,
  lifetimeFraction: 0.33,
  renewalInfo: true,
  supersededAfterHours: 24,
});
