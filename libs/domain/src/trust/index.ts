// Public root stores: the CCADB report that says which roots each store includes, and the
// evaluation of stored certificates against those roots. Pure: the service fetches and stores.
export { anchorsFromPemReports, CcadbFormatError, type CcadbRoot, parseCcadbRoots, ROOT_STORE_IDS, type RootStoreId } from './ccadb';
export { type TrustAnchor, type TrustCandidate, TrustEvaluator, type TrustVerdict } from './evaluate';
