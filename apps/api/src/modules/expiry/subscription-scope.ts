/**
 * The one scoping rule shared by e-mail alerts, calendar feeds and the dashboard
 * (docs/api-contract.md sections 6 and 11): a user with tag subscriptions sees what sits on
 * endpoints sharing at least one subscribed tag; a user with none sees everything. Disabled and
 * scan-exempt endpoints count.
 *
 * `endpoint` is the alias of `endpoints` in the query, `subscriptions` the placeholder (`$2`) bound
 * to the subscribed tags as a text array. node-postgres plans each statement with its values, so
 * an empty list folds the condition to true and a non-empty one can use the tags' GIN index.
 * Because an empty list means everything, a caller may leave out a join to `endpoints` that exists
 * only to apply this rule when the list is empty.
 */
export function inSubscriptionScope(endpoint: string, subscriptions: string): string {
  return `(cardinality(${subscriptions}::text[]) = 0 OR ${endpoint}.tags && ${subscriptions}::text[])`;
}
