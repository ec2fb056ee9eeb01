import { escapeHtml } from './escape-html';
import { htmlToText } from './html-to-text';

describe('htmlToText', () => {
  it('breaks lines at <br> and at the end of p, div, tr, headings and list items', () => {
    const html = '<h2>Title</h2><p>One<br>Two<br/>Three</p><div>Four</div><div>Five</div><ul><li>a</li><li>b</li></ul>After';
    expect(htmlToText(html)).toBe('Title\n\nOne\nTwo\nThree\n\nFour\nFive\n- a\n- b\nAfter');
  });

  it('folds markup whitespace and indentation as a browser does', () => {
    const html = '<div>\n    <p>\n      Hello\n      world,   how   are you?\n    </p>\n  </div>\n';
    expect(htmlToText(html)).toBe('Hello world, how are you?');
  });

  it('removes other tags but keeps their text, and separates table cells', () => {
    const html = '<table><tr><td><b>Name:</b></td><td><span style="x">example.com</span></td></tr><tr><td>A</td><td>B</td></tr></table>';
    expect(htmlToText(html)).toBe('Name: example.com\nA B');
  });

  it('decodes named, decimal and hexadecimal entities once', () => {
    expect(htmlToText('&lt;b&gt; &amp;amp; &quot;q&quot; &#39;s&#39; &#x263A; &copy; &unknown; &constructor; &#0; &#x110000;')).toBe(
      '<b> &amp; "q" \'s\' ☺ © &unknown; &constructor; \ufffd \ufffd',
    );
  });

  it('collapses runs of blank lines to one', () => {
    expect(htmlToText('<p>a</p><p></p><br><br><br><p>b</p>')).toBe('a\n\nb');
  });

  it('drops head, style, script, comments and the doctype', () => {
    const html =
      '<!DOCTYPE html><html><head><title>T</title><style>p > a { color: red }</style></head>' +
      '<body><!-- note --><script>if (a < b) alert(1)</script><p>Visible</p></body></html>';
    expect(htmlToText(html)).toBe('Visible');
  });

  it('keeps a literal < that starts no tag, and a > inside a quoted attribute', () => {
    expect(htmlToText('1 < 2 and <a title="x > y">link</a> 3 > 2')).toBe('1 < 2 and link 3 > 2');
  });

  it('keeps the target of a link beside its label', () => {
    expect(htmlToText('<a href="https://certs.example/x?a=1&amp;b=2">Open</a>, <a href="mailto:ops@example.com">ops@example.com</a>')).toBe(
      'Open (https://certs.example/x?a=1&b=2), ops@example.com',
    );
  });

  it('prints only the targets a reader can follow', () => {
    const html =
      '<a href="/relative">Here</a>, <a href="#top">top</a>, <a href="javascript:go()">go</a>, <a href="https://e.example/">https://e.example/</a>';
    expect(htmlToText(html)).toBe('Here, top, go, https://e.example/');
  });

  it('decodes the full HTML5 entity table, and escaped values exactly once', () => {
    expect(htmlToText('caf&eacute; &hellip;')).toBe('café …');
    const value = '&copy &amp; &#39; &lt;x&gt;';
    expect(htmlToText(`<p>${escapeHtml(value)}</p>`)).toBe(value);
  });

  it('never wraps a long line, so a fingerprint stays whole', () => {
    const fingerprint = Array.from({ length: 32 }, (_, index) => index.toString(16).padStart(2, '0').toUpperCase()).join(':');
    const html = `<p>${'word '.repeat(30)}${fingerprint}</p>`;
    expect(htmlToText(html)).toBe(`${'word '.repeat(30)}${fingerprint}`);
  });

  it('reads an image as its alt text and numbers ordered lists', () => {
    expect(htmlToText('<img src="https://e.example/logo.png" alt="Example Corp"><ol><li>renew</li><li>deploy</li></ol>')).toBe(
      'Example Corp\n 1. renew\n 2. deploy',
    );
  });

  it('keeps the whitespace of <pre> content', () => {
    expect(htmlToText('<p>Intro</p><pre>\nline 1\n  indented\n\nline 4</pre>')).toBe('Intro\n\nline 1\n  indented\n\nline 4');
  });

  it('round-trips escaped text through <pre>', () => {
    const text = 'a & b <c>\n  "quoted" \'x\'';
    expect(htmlToText(`<pre>${escapeHtml(text)}</pre>`)).toBe(text);
  });

  it('returns plain text unchanged apart from folded whitespace', () => {
    expect(htmlToText('Just text')).toBe('Just text');
    expect(htmlToText('')).toBe('');
  });
});

describe('escapeHtml', () => {
  it('escapes the five characters that matter in content and attributes', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });
});
