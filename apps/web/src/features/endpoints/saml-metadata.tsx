import { DateTime } from '../../ui/expiry';

/*
 * The samlMetadata of a SAML endpoint (docs/api-contract.md section 4) is typed by the API as an open object;
 * these readers take what is there and skip what is not, so a field the API adds later does no harm.
 */
type Json = Record<string, unknown>;
const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const record = (value: unknown): Json => (value !== null && typeof value === 'object' ? (value as Json) : {});
const strings = (value: unknown): string[] => list(value).filter((item): item is string => typeof item === 'string');

/** The metadata of the latest successful fetch: entity, roles, validity, services and contacts. */
export function SamlMetadata({ metadata }: { metadata: Json | null }) {
  return (
    <section aria-labelledby="saml-heading">
      <h2 id="saml-heading">SAML metadata</h2>
      {metadata === null ? (
        <p className="muted">Not fetched yet: the metadata comes with a successful scan.</p>
      ) : (
        <Metadata metadata={metadata} />
      )}
    </section>
  );
}

function Metadata({ metadata }: { metadata: Json }) {
  const entityCount = typeof metadata.entityCount === 'number' ? metadata.entityCount : null;
  const roles = strings(metadata.roles);
  return (
    <>
      <dl className="facts">
        <div>
          <dt>Entity ID</dt>
          <dd className="mono">{text(metadata.entityId) ?? <span className="muted">none</span>}</dd>
        </div>
        {entityCount !== null && (
          <div>
            <dt>Entities in the document</dt>
            <dd>{entityCount} (the first is shown; the certificates of all are linked)</dd>
          </div>
        )}
        <div>
          <dt>Roles</dt>
          <dd>{roles.length > 0 ? roles.map((role) => role.toUpperCase()).join(', ') : <span className="muted">none</span>}</dd>
        </div>
        <div>
          <dt>Valid until</dt>
          <dd>{text(metadata.validUntil) ? <DateTime value={text(metadata.validUntil)} /> : <span className="muted">not stated</span>}</dd>
        </div>
        <div>
          <dt>Fetched</dt>
          <dd>
            <DateTime value={text(metadata.fetchedAt)} />
          </dd>
        </div>
        {text(metadata.digest) && (
          <div>
            <dt>Document digest (SHA-256)</dt>
            <dd className="mono small">{text(metadata.digest)}</dd>
          </div>
        )}
      </dl>
      <Services caption="Single sign-on services" services={list(metadata.singleSignOnServices)} />
      <Services caption="Single logout services" services={list(metadata.singleLogoutServices)} />
      <Services caption="Assertion consumer services" services={list(metadata.assertionConsumerServices)} indexed />
      <Contacts contacts={list(metadata.contacts)} />
    </>
  );
}

function Services({ caption, services, indexed = false }: { caption: string; services: unknown[]; indexed?: boolean }) {
  if (services.length === 0) return null;
  return (
    <div className="table-scroll">
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Binding</th>
            <th scope="col">Location</th>
            {indexed && <th scope="col">Index</th>}
            {indexed && <th scope="col">Default</th>}
          </tr>
        </thead>
        <tbody>
          {services.map((item, index) => {
            const service = record(item);
            return (
              <tr key={index}>
                <td className="mono small">{text(service.binding) ?? ''}</td>
                <td className="mono small">{text(service.location) ?? ''}</td>
                {indexed && <td>{typeof service.index === 'number' ? service.index : ''}</td>}
                {indexed && <td>{service.isDefault === true ? 'yes' : ''}</td>}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function Contacts({ contacts }: { contacts: unknown[] }) {
  if (contacts.length === 0) return null;
  return (
    <div className="table-scroll">
      <table>
        <caption>Contacts</caption>
        <thead>
          <tr>
            <th scope="col">Type</th>
            <th scope="col">Name</th>
            <th scope="col">Company</th>
            <th scope="col">E-mail</th>
            <th scope="col">Telephone</th>
          </tr>
        </thead>
        <tbody>
          {contacts.map((item, index) => {
            const contact = record(item);
            return (
              <tr key={index}>
                <td>{text(contact.type) ?? ''}</td>
                <td>{[text(contact.givenName), text(contact.surname)].filter(Boolean).join(' ')}</td>
                <td>{text(contact.company) ?? ''}</td>
                <td>{strings(contact.emailAddresses).join(', ')}</td>
                <td>{strings(contact.telephoneNumbers).join(', ')}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
