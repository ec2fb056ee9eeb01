import { EVENT_TYPES, TEMPLATE_VARIABLES } from './event-types';
import { formatTemplateProblem, validateTemplate } from './validate-template';

const body = (text: string) => ({ subject: 'Certificate alert', body: text });
const subject = (text: string) => ({ subject: text, body: '<p>Hello</p>' });

describe('TEMPLATE_VARIABLES', () => {
  it('lists the variables of each event type in the spec order', () => {
    expect(TEMPLATE_VARIABLES.cert_expiring).toEqual([
      'EndpointName',
      'EndpointType',
      'CommonName',
      'NotAfter',
      'DaysRemaining',
      'Fingerprint',
    ]);
    expect(TEMPLATE_VARIABLES.cert_expired).toEqual(['EndpointName', 'EndpointType', 'CommonName', 'NotAfter', 'Fingerprint']);
  });
});

describe('validateTemplate', () => {
  it.each(EVENT_TYPES)('accepts every variable of %s, in subject and body', (eventType) => {
    const all = TEMPLATE_VARIABLES[eventType].map((name) => `{{ .${name} }}`).join(' ');
    expect(validateTemplate(eventType, { subject: all, body: `<p>${all}</p>` })).toEqual([]);
  });

  it('accepts plain text without any variable', () => {
    expect(validateTemplate('cert_expired', body('Nothing to fill in }}'))).toEqual([]);
  });

  it('refuses DaysRemaining for cert_expired but not for cert_expiring', () => {
    const template = body('<p>Hi</p>\n<p> {{ .DaysRemaining }} days</p>');
    expect(validateTemplate('cert_expiring', template)).toEqual([]);
    expect(validateTemplate('cert_expired', template)).toEqual([
      {
        field: 'body',
        message:
          'unknown variable .DaysRemaining at line 2, column 8; known: EndpointName, EndpointType, CommonName, NotAfter, Fingerprint',
        line: 2,
        column: 8,
      },
    ]);
  });

  it('formats a problem as the line the API answers', () => {
    const [problem] = validateTemplate('cert_expiring', body('<p>\n    {{.DaysLeft}}</p>'));
    expect(formatTemplateProblem(problem)).toBe(
      'body: unknown variable .DaysLeft at line 2, column 7; known: EndpointName, EndpointType, CommonName, NotAfter, DaysRemaining, Fingerprint',
    );
  });

  it('suggests the right spelling when only the case is wrong', () => {
    expect(validateTemplate('cert_expiring', subject('{{ .commonName }}'))[0].message).toBe(
      'unknown variable .commonName at line 1, column 4; did you mean .CommonName?',
    );
  });

  it('does not mistake Object.prototype members for variables', () => {
    expect(validateTemplate('cert_expiring', body('{{ .constructor }}{{ .toString }}'))).toHaveLength(2);
  });

  it('reports syntax errors and unknown variables of both fields, subject first, each in source order', () => {
    const problems = validateTemplate('cert_expired', {
      subject: '{{ .Nope }} {{ CommonName }}',
      body: '{{ .DaysRemaining }}\n{{ .A | b }}\n{{ .CommonName',
    });
    expect(problems.map(formatTemplateProblem)).toEqual([
      expect.stringMatching(/^subject: unknown variable \.Nope at line 1, column 4;/),
      'subject: missing dot in {{ CommonName }}; write {{ .CommonName }} at line 1, column 16',
      expect.stringMatching(/^body: unknown variable \.DaysRemaining at line 1, column 4;/),
      expect.stringMatching(/^body: unsupported expression ".A \| b";.* at line 2, column 4$/),
      'body: unclosed {{ at line 3, column 1',
    ]);
  });

  it.each(['\r\n', '\n', '\r'])('refuses a line break (%j) in the subject', (lineBreak) => {
    expect(validateTemplate('cert_expiring', subject(`Expiring${lineBreak}Bcc: x@y`))).toEqual([
      { field: 'subject', message: 'must be one line: line break at column 9', line: 1, column: 9 },
    ]);
  });

  it('accepts line breaks in the body', () => {
    expect(validateTemplate('cert_expiring', body('a\r\nb\nc'))).toEqual([]);
  });

  it('refuses a subject over 998 characters and accepts one of exactly 998', () => {
    expect(validateTemplate('cert_expiring', subject('x'.repeat(998)))).toEqual([]);
    expect(validateTemplate('cert_expiring', subject('x'.repeat(999)))).toEqual([
      { field: 'subject', message: 'is 999 characters long; at most 998 are allowed', line: 1, column: 999 },
    ]);
  });

  it('refuses a body over 100,000 characters and accepts one of exactly 100,000', () => {
    expect(validateTemplate('cert_expiring', body('x'.repeat(100_000)))).toEqual([]);
    expect(validateTemplate('cert_expiring', body(`${'x'.repeat(99_999)}\nxx`))).toEqual([
      { field: 'body', message: 'is 100002 characters long; at most 100000 are allowed', line: 2, column: 1 },
    ]);
  });
});
