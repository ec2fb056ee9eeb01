import { decodeCharacterReferences, readXml, type XmlElement } from './safe-xml';

function rootOf(xml: string): XmlElement {
  const reading = readXml(xml);
  if (reading.kind !== 'element') throw new Error(`expected an element, got ${reading.kind}: ${reading.message}`);
  return reading.root;
}

describe('readXml', () => {
  it('resolves prefixes and the default namespace through nested declarations', () => {
    const root = rootOf('<a:root xmlns:a="urn:a" xmlns="urn:default"><child/><inner xmlns=""><bare/></inner><a:prefixed/></a:root>');
    expect(root).toMatchObject({ namespace: 'urn:a', localName: 'root' });
    const [child, inner, prefixed] = root.children;
    expect([child.namespace, inner.namespace, inner.children[0].namespace, prefixed.namespace]).toEqual([
      'urn:default',
      null,
      null,
      'urn:a',
    ]);
  });

  it('joins text around comments and keeps CDATA literal', () => {
    expect(rootOf('<r>a &amp; <!-- note -->b<![CDATA[ &amp; <c> ]]></r>').text).toBe('a & b &amp; <c> ');
  });

  it('refuses a document type declaration before parsing', () => {
    expect(readXml('<!DOCTYPE r SYSTEM "http://attacker.example/r.dtd"><r/>').kind).toBe('refused');
  });

  it('reports nesting deeper than any metadata as invalid instead of recursing', () => {
    expect(readXml(`${'<a>'.repeat(500)}${'</a>'.repeat(500)}`).kind).toBe('invalid');
  });

  it('reports element names that would pollute prototypes as invalid', () => {
    expect(readXml('<__proto__><constructor/></__proto__>').kind).toBe('invalid');
  });
});

describe('decodeCharacterReferences', () => {
  it('decodes the predefined entities and numeric references, one character each', () => {
    expect(decodeCharacterReferences('&lt;&gt;&quot;&apos;&amp;amp; &#65;&#x1F600;')).toBe(`<>"'&amp; A\u{1F600}`);
  });

  it('leaves unknown entities and impossible code points as written', () => {
    expect(decodeCharacterReferences('&xxe; &#0; &#xD800; &#x110000; &AMP;')).toBe('&xxe; &#0; &#xD800; &#x110000; &AMP;');
  });
});
