// Runs in a worker thread of SamlParser's pool, never on the API's event loop. It imports the
// domain library only: no Nest, no database, so the thread starts in a fraction of a second.
import { parseSamlMetadata, type SamlCertificate, type SamlEntityPayload } from '@certkeeper/domain/saml';

/** Problems listed by name; the rest are counted. A hostile document can have hundreds of thousands. */
const MAX_LISTED_PROBLEMS = 20;

/**
 * What ingestion needs from a metadata document, as plain data: it crosses back to the event loop
 * by structured clone, whose cost there grows with the number of objects. So only the first
 * entity's payload travels (the endpoint shows that one, with the count), never hundreds of
 * thousands of entities. ParsedCertificate holds strings, numbers, booleans, arrays, Dates and a
 * Uint8Array of its own (not a view into a shared buffer), all of which structured clone keeps
 * as they are; entries sharing a certificate still share one object on arrival.
 */
export interface SamlDocumentReading {
  /** SHA-256 hex of the document, recomputed here. */
  digest: string;
  entityCount: number;
  /** The first EntityDescriptor in document order; null when there is none. */
  firstEntity: SamlEntityPayload | null;
  certificates: SamlCertificate[];
  /** Sentences for people: what could not be read, at most MAX_LISTED_PROBLEMS and then a count. */
  problems: string[];
}

export default function readSamlDocument(document: string): SamlDocumentReading {
  const parsed = parseSamlMetadata(document);
  const listed = parsed.problems.slice(0, MAX_LISTED_PROBLEMS).map((problem) => problem.message);
  const unlisted = parsed.problems.length - listed.length;
  return {
    digest: parsed.digest,
    entityCount: parsed.entities.length,
    firstEntity: parsed.entities[0] ?? null,
    certificates: parsed.certificates,
    problems: unlisted > 0 ? [...listed, `${unlisted} more problems`] : listed,
  };
}
