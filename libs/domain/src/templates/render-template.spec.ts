import { renderTemplate, TemplateRenderError } from './render-template';

const values = {
  EndpointName: 'web-1.example.com:443, web-2.example.com:443',
  EndpointType: 'host',
  CommonName: 'example.com',
  NotAfter: '2026-12-01 14:00 UTC',
  DaysRemaining: '12',
  Fingerprint: 'AB:CD:EF',
};

const renderError = (render: () => unknown): TemplateRenderError => {
  try {
    render();
  } catch (error) {
    if (error instanceof TemplateRenderError) return error;
    throw error;
  }
  throw new Error('expected a TemplateRenderError');
};

describe('renderTemplate', () => {
  it('fills subject, html and text', () => {
    const rendered = renderTemplate(
      { subject: '{{.CommonName}} in {{ .DaysRemaining }} days', body: '<p>{{ .CommonName }} expires {{.NotAfter}}}}</p>' },
      values,
    );
    expect(rendered).toEqual({
      subject: 'example.com in 12 days',
      html: '<p>example.com expires 2026-12-01 14:00 UTC}}</p>',
      text: 'example.com expires 2026-12-01 14:00 UTC}}',
    });
  });

  it('escapes values in the html but gives them back exactly in the text', () => {
    const hostile = { ...values, CommonName: `<script>alert('x')</script> R&D "co"` };
    const rendered = renderTemplate({ subject: '{{ .CommonName }}', body: '<p>CN: <b>{{ .CommonName }}</b></p>' }, hostile);
    expect(rendered.html).toBe('<p>CN: <b>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; R&amp;D &quot;co&quot;</b></p>');
    expect(rendered.text).toBe(`CN: <script>alert('x')</script> R&D "co"`);
    expect(rendered.subject).toBe(`<script>alert('x')</script> R&D "co"`);
  });

  it('does not decode entity-like text inside a value', () => {
    const rendered = renderTemplate({ subject: 's', body: '<p>{{ .CommonName }}</p>' }, { CommonName: '&lt;not a tag&gt;' });
    expect(rendered.html).toBe('<p>&amp;lt;not a tag&amp;gt;</p>');
    expect(rendered.text).toBe('&lt;not a tag&gt;');
  });

  describe('a body written as plain text', () => {
    const body = 'Hello,\n\n{{ .CommonName }} expires in {{ .DaysRemaining }} days.\n  - renew it\n  - deploy it\n';

    it('is sent as text only, keeping every line and the values as they are', () => {
      const rendered = renderTemplate({ subject: 's', body }, { CommonName: 'a < b & <c>', DaysRemaining: '7' });
      expect(rendered.html).toBeNull();
      expect(rendered.text).toBe('Hello,\n\na < b & <c> expires in 7 days.\n  - renew it\n  - deploy it\n');
    });

    it.each([
      ['an element', '<p>{{ .CommonName }}</p>'],
      ['a line break', 'line one<br>line two'],
      ['an entity', 'Tom &amp; Jerry'],
      ['a comment', '<!-- note -->text'],
    ])('is told apart from HTML with %s, which keeps its text alternative', (_, html) => {
      const rendered = renderTemplate({ subject: 's', body: html }, { CommonName: 'x' });
      expect(rendered.html).not.toBeNull();
      expect(rendered.text).not.toMatch(/<p>|<br>|&amp;|<!--/);
    });

    it('is not mistaken for HTML because of a comparison or a value that looks like a tag', () => {
      expect(renderTemplate({ subject: 's', body: 'expires in < 30 days, > 1 day' }, {}).html).toBeNull();
      expect(renderTemplate({ subject: 's', body: '{{ .CommonName }}' }, { CommonName: '<b>x</b>' }).html).toBeNull();
    });
  });

  it('keeps a header injection attempt on one line of the subject', () => {
    const rendered = renderTemplate({ subject: 'Expiring: {{ .CommonName }}', body: 'x' }, { CommonName: 'evil\r\nBcc: x@y' });
    expect(rendered.subject).toBe('Expiring: evil Bcc: x@y');
  });

  it('replaces every control character and Unicode line separator in the subject, then collapses and trims', () => {
    const rendered = renderTemplate(
      { subject: ' {{ .CommonName }} ', body: 'x' },
      { CommonName: '\ta\u0000b\u007f\u0085c\u2028d\u2029e\vf  \n g ' },
    );
    expect(rendered.subject).toBe('a b c d e f g');
  });

  it('caps a long subject at 250 characters, marking the cut', () => {
    const rendered = renderTemplate({ subject: 'Expiring: {{ .CommonName }}', body: 'x' }, { CommonName: 'a'.repeat(1000) });
    expect(rendered.subject).toHaveLength(250);
    expect(rendered.subject).toMatch(/^Expiring: a+…$/);
  });

  it('does not cut a subject in the middle of a surrogate pair', () => {
    const rendered = renderTemplate({ subject: '{{ .CommonName }}', body: 'x' }, { CommonName: `${'a'.repeat(248)}😀${'b'.repeat(10)}` });
    expect(rendered.subject).toBe(`${'a'.repeat(248)}…`);
  });

  it('leaves a subject of exactly 250 characters alone', () => {
    const subject = 'x'.repeat(250);
    expect(renderTemplate({ subject, body: 'x' }, {}).subject).toBe(subject);
  });

  it('throws TemplateRenderError naming a missing value and where it is used', () => {
    const withoutDays = Object.fromEntries(Object.entries(values).filter(([name]) => name !== 'DaysRemaining'));
    const error = renderError(() => renderTemplate({ subject: 's', body: '<p>\n{{ .DaysRemaining }}</p>' }, withoutDays));
    expect(error.message).toBe('no value for .DaysRemaining (body, line 2, column 4)');
    expect(error.name).toBe('TemplateRenderError');
    expect(error).toBeInstanceOf(Error);
  });

  it('throws for a missing value in the subject too', () => {
    expect(() => renderTemplate({ subject: '{{ .Nope }}', body: 'x' }, values)).toThrow(
      new TemplateRenderError('no value for .Nope (subject, line 1, column 4)'),
    );
  });

  it('does not take Object.prototype members for values', () => {
    expect(() => renderTemplate({ subject: 's', body: '{{ .constructor }}' }, {})).toThrow(TemplateRenderError);
  });

  it('throws TemplateRenderError when the template does not parse', () => {
    expect(() => renderTemplate({ subject: 'ok', body: '{{ .CommonName | upper }} {{ .X' }, values)).toThrow(
      /^body does not parse: unsupported expression .* at line 1, column 4; unclosed \{\{ at line 1, column 27$/,
    );
  });
});
