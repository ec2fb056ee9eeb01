import { attributeOf, childrenNamed, childText, childTexts, isNamed, METADATA_NAMESPACE } from './metadata-xml';
import type { XmlElement } from './safe-xml';
import type { SamlContact, SamlEndpoint, SamlEntityPayload, SamlIndexedEndpoint } from './types';

const MD = METADATA_NAMESPACE;

// Every role descriptor SAML 2.0 metadata defines: they all may carry KeyDescriptors and contacts.
const ROLE_DESCRIPTORS = [
  'IDPSSODescriptor',
  'SPSSODescriptor',
  'AuthnAuthorityDescriptor',
  'AttributeAuthorityDescriptor',
  'PDPDescriptor',
  'RoleDescriptor',
  'AffiliationDescriptor',
];

/** The role descriptors of an EntityDescriptor, in document order. */
export function roleDescriptorsOf(entity: XmlElement): XmlElement[] {
  return entity.children.filter((child) => ROLE_DESCRIPTORS.some((name) => isNamed(child, MD, name)));
}

/** Everything but the certificates, which are read separately so their failures can be reported. */
export function readEntityPayload(entity: XmlElement, entityId: string, validUntil: string | null): SamlEntityPayload {
  const identityProviders = childrenNamed(entity, MD, 'IDPSSODescriptor');
  const serviceProviders = childrenNamed(entity, MD, 'SPSSODescriptor');
  return {
    entityId,
    roles: rolesOf(entity),
    validUntil,
    singleSignOnServices: endpoints(identityProviders, 'SingleSignOnService'),
    singleLogoutServices: endpoints([...identityProviders, ...serviceProviders], 'SingleLogoutService'),
    assertionConsumerServices: indexedEndpoints(serviceProviders, 'AssertionConsumerService'),
    contacts: [entity, ...roleDescriptorsOf(entity)].flatMap((parent) => childrenNamed(parent, MD, 'ContactPerson')).map(readContact),
  };
}

function rolesOf(entity: XmlElement): ('idp' | 'sp')[] {
  const roles = entity.children.flatMap((child): ('idp' | 'sp')[] => {
    if (isNamed(child, MD, 'IDPSSODescriptor')) return ['idp'];
    if (isNamed(child, MD, 'SPSSODescriptor')) return ['sp'];
    return [];
  });
  return [...new Set(roles)];
}

/** Endpoints without Binding or Location are schema violations that nobody could use: they are left out. */
function endpoints(descriptors: XmlElement[], localName: string): SamlEndpoint[] {
  const found = descriptors.flatMap((descriptor) => childrenNamed(descriptor, MD, localName)).flatMap(readEndpoint);
  // An entity with both roles often repeats the same logout endpoint in each. A set keeps this
  // linear however many endpoints a hostile document lists.
  const seen = new Set<string>();
  return found.filter((endpoint) => {
    const key = JSON.stringify([endpoint.binding, endpoint.location]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function indexedEndpoints(descriptors: XmlElement[], localName: string): SamlIndexedEndpoint[] {
  return descriptors
    .flatMap((descriptor) => childrenNamed(descriptor, MD, localName))
    .flatMap((element) =>
      readEndpoint(element).map((endpoint) => ({
        ...endpoint,
        index: indexOf(element),
        isDefault: isTrue(attributeOf(element, 'isDefault')),
      })),
    );
}

function readEndpoint(element: XmlElement): SamlEndpoint[] {
  const binding = attributeOf(element, 'Binding');
  const location = attributeOf(element, 'Location');
  return binding === null || location === null ? [] : [{ binding, location }];
}

/** xs:unsignedShort; anything else is no index at all rather than a guess. */
function indexOf(element: XmlElement): number | null {
  const value = attributeOf(element, 'index');
  return value !== null && /^[0-9]{1,5}$/.test(value) && Number(value) <= 0xffff ? Number(value) : null;
}

/** xs:boolean: 'true' or '1'. */
function isTrue(value: string | null): boolean {
  return value === 'true' || value === '1';
}

function readContact(person: XmlElement): SamlContact {
  return {
    type: attributeOf(person, 'contactType'),
    company: childText(person, MD, 'Company'),
    givenName: childText(person, MD, 'GivenName'),
    // The schema spells it SurName.
    surname: childText(person, MD, 'SurName'),
    emailAddresses: childTexts(person, MD, 'EmailAddress'),
    telephoneNumbers: childTexts(person, MD, 'TelephoneNumber'),
  };
}
