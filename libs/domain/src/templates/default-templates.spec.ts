import { DEFAULT_TEMPLATES, renderDefaultAsPlainText } from './default-templates';
import { EVENT_TYPES, type EventType, type TemplateValues } from './event-types';
import { htmlToText } from './html-to-text';
import { renderTemplate } from './render-template';
import { validateTemplate } from './validate-template';

const expiringValues: TemplateValues = {
  EndpointName: 'web-1.example.com:443, idp.example.com',
  EndpointType: 'host',
  CommonName: 'www.example.com',
  NotAfter: '2026-12-01 14:00 UTC',
  DaysRemaining: '12',
  Fingerprint: '3F:A1:9C:00:7B:2E:41:D8:55:10:6A:C4:E2:9B:70:1F:88:4D:C3:27:90:AB:5E:66:12:F0:3D:B9:A4:7C:E1:02',
};
// cert_expired has no DaysRemaining.
const expiredValues = Object.fromEntries(Object.entries(expiringValues).filter(([name]) => name !== 'DaysRemaining'));
const overdueValues: TemplateValues = {
  ...expiringValues,
  WindowStart: '2026-11-20 00:00 UTC',
  WindowEnd: '2026-11-22 00:00 UTC',
  ExplanationURL: 'https://ca.example/incident',
};
const revokedValues: TemplateValues = { ...expiredValues, RevokedAt: '2026-11-02 08:30 UTC', Reason: 'keyCompromise' };
const sampleValues: Record<EventType, TemplateValues> = {
  cert_expiring: expiringValues,
  cert_expired: expiredValues,
  renewal_overdue: overdueValues,
  rotation_regression: { ...expiringValues, PreviousFingerprint: 'AA:BB', Regressions: 'sans, rollback' },
  renewal_not_deployed: { ...expiringValues, NewFingerprint: 'CC:DD', NewNotBefore: '2026-11-20 09:00 UTC' },
  cert_revoked: revokedValues,
};

describe('DEFAULT_TEMPLATES', () => {
  it.each(EVENT_TYPES)('%s validates', (eventType) => {
    expect(validateTemplate(eventType, DEFAULT_TEMPLATES[eventType])).toEqual([]);
  });

  it.each(EVENT_TYPES)('%s uses every variable of its event type', (eventType) => {
    const { subject, body } = DEFAULT_TEMPLATES[eventType];
    for (const name of Object.keys(sampleValues[eventType])) expect(`${subject}\n${body}`).toContain(`{{ .${name} }}`);
  });

  it.each(EVENT_TYPES)('%s needs nothing from outside the message: inline CSS only', (eventType) => {
    const { body } = DEFAULT_TEMPLATES[eventType];
    expect(body).not.toMatch(/<style|<link|<img|<script|url\(|https?:/i);
  });

  it('renders cert_expiring for sample values', () => {
    const rendered = renderTemplate(DEFAULT_TEMPLATES.cert_expiring, expiringValues);
    expect(rendered.subject).toBe('Certificate for www.example.com expires in 12 days');
    for (const value of Object.values(expiringValues)) expect(rendered.html).toContain(value);
    expect(rendered.text).toBe(
      [
        'Certificate expiring soon',
        '',
        'The certificate for www.example.com expires on 2026-12-01 14:00 UTC. Renew it and deploy the new certificate before then.',
        '',
        'Days remaining: 12',
        'Expires on: 2026-12-01 14:00 UTC',
        'Common name: www.example.com',
        'Used by: web-1.example.com:443, idp.example.com',
        'Endpoint type: host',
        `Fingerprint: ${expiringValues.Fingerprint}`,
        '',
        'Sent by Certkeeper.',
      ].join('\n'),
    );
  });

  it('renders cert_expired for sample values', () => {
    const rendered = renderTemplate(DEFAULT_TEMPLATES.cert_expired, expiredValues);
    expect(rendered.subject).toBe('Certificate for www.example.com has expired');
    expect(rendered.text).toBe(
      [
        'Certificate expired',
        '',
        'The certificate for www.example.com expired on 2026-12-01 14:00 UTC. Connections and sign-ins that rely on it may fail until it is replaced.',
        '',
        'Expired on: 2026-12-01 14:00 UTC',
        'Common name: www.example.com',
        'Used by: web-1.example.com:443, idp.example.com',
        'Endpoint type: host',
        `Fingerprint: ${expiringValues.Fingerprint}`,
        '',
        'Sent by Certkeeper.',
      ].join('\n'),
    );
  });

  it.each(EVENT_TYPES)('%s reads well as text straight from its template body', (eventType) => {
    const text = htmlToText(DEFAULT_TEMPLATES[eventType].body);
    expect(text).not.toMatch(/[<>]|style=|&[a-z]+;/);
    expect(text).toContain('Common name: {{ .CommonName }}\nUsed by: {{ .EndpointName }}\nEndpoint type: {{ .EndpointType }}');
    expect(text.split('\n').every((line) => line === line.trim())).toBe(true);
  });

  it('escapes a hostile common name in the html but not in the text', () => {
    const rendered = renderTemplate(DEFAULT_TEMPLATES.cert_expiring, { ...expiringValues, CommonName: '<script>x</script> & co' });
    expect(rendered.html).toContain('&lt;script&gt;x&lt;/script&gt; &amp; co');
    expect(rendered.html).not.toContain('<script>');
    expect(rendered.text).toContain('Common name: <script>x</script> & co');
  });
});

describe('renderDefaultAsPlainText', () => {
  it.each(EVENT_TYPES)('%s contains the values, as text only', (eventType) => {
    const values = { ...sampleValues[eventType], EndpointName: 'a & <b>' };
    const rendered = renderDefaultAsPlainText(eventType, values);
    expect(rendered.subject).toBe(renderTemplate(DEFAULT_TEMPLATES[eventType], values).subject);
    for (const value of Object.values(values)) expect(rendered.text).toContain(value);
    expect(rendered.text).not.toMatch(/<p|<td|style=/);
    expect(rendered.html).toBeNull();
    expect(rendered.text).toContain('Used by: a & <b>');
  });

  it.each(EVENT_TYPES)('%s never throws: missing values render as empty', (eventType) => {
    const rendered = renderDefaultAsPlainText(eventType, {});
    expect(rendered.subject).toMatch(/^Certificate for/);
    expect(rendered.text).toContain('Common name:\n');
  });

  it('ignores Object.prototype members and non-string values', () => {
    const values = Object.create({ Fingerprint: 'inherited' }) as TemplateValues;
    Object.assign(values, { CommonName: 42 });
    const rendered = renderDefaultAsPlainText('cert_expired', values);
    expect(rendered.text).not.toMatch(/42|inherited/);
  });

  it('keeps a header injection attempt out of the fallback subject', () => {
    expect(renderDefaultAsPlainText('cert_expired', { CommonName: 'evil\r\nBcc: x@y' }).subject).toBe(
      'Certificate for evil Bcc: x@y has expired',
    );
  });
});
