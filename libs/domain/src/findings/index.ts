export * from './finding-codes';
export * from './evaluate-findings';
