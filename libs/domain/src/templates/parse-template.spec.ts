import { parseTemplate, PositionTracker } from './parse-template';

const variablesOf = (source: string) =>
  parseTemplate(source).segments.flatMap((segment) => (segment.kind === 'variable' ? [segment.name] : []));

describe('parseTemplate', () => {
  it.each([
    ['{{.CommonName}}', ['CommonName']],
    ['{{ .CommonName }}', ['CommonName']],
    ['{{   .CommonName\t}}', ['CommonName']],
    ['{{\n.CommonName\n}}', ['CommonName']],
    ['{{ .CommonName }} and {{.NotAfter}} on one line', ['CommonName', 'NotAfter']],
    ['{{ .CommonName }}{{ .NotAfter }}', ['CommonName', 'NotAfter']],
    ['{{ .Under_score9 }}', ['Under_score9']],
  ])('reads %j', (source, names) => {
    const parsed = parseTemplate(source);
    expect(parsed.errors).toEqual([]);
    expect(variablesOf(source)).toEqual(names);
  });

  it('keeps the text between tags, and adjacent tags stay adjacent', () => {
    expect(parseTemplate('Hi {{ .A }}{{ .B }}!').segments).toEqual([
      { kind: 'text', text: 'Hi ' },
      { kind: 'variable', name: 'A', line: 1, column: 7 },
      { kind: 'variable', name: 'B', line: 1, column: 15 },
      { kind: 'text', text: '!' },
    ]);
  });

  it('treats a lone }} and single braces as text', () => {
    const source = 'a }} b { c } d {x}';
    expect(parseTemplate(source)).toEqual({ segments: [{ kind: 'text', text: source }], errors: [] });
  });

  it('treats }} after a complete tag as text', () => {
    const parsed = parseTemplate('{{ .A }} }}');
    expect(parsed.errors).toEqual([]);
    expect(parsed.segments[1]).toEqual({ kind: 'text', text: ' }}' });
  });

  it('reports an unclosed {{ at the braces', () => {
    expect(parseTemplate('line one\n  Hello {{ .CommonName').errors).toEqual([
      { message: 'unclosed {{ at line 2, column 9', line: 2, column: 9 },
    ]);
  });

  it('reports an unclosed {{ followed by a good tag, and reads on', () => {
    const parsed = parseTemplate('{{ .A and {{ .B }} then {{ C }}');
    expect(parsed.errors.map((error) => error.message)).toEqual([
      'unclosed {{ at line 1, column 1',
      'missing dot in {{ C }}; write {{ .C }} at line 1, column 28',
    ]);
  });

  it.each([
    ['{{ CommonName }}', 'missing dot in {{ CommonName }}; write {{ .CommonName }} at line 1, column 4'],
    [
      '{{ .CommonName | upper }}',
      'unsupported expression ".CommonName | upper"; only {{ .Variable }} is supported (no pipes, functions or conditionals) at line 1, column 4',
    ],
    ['{{ }}', 'empty {{ }}; write {{ .Variable }} at line 1, column 1'],
    ['{{}}', 'empty {{ }}; write {{ .Variable }} at line 1, column 1'],
    ['{{ . }}', 'missing variable name after the dot in {{ . }} at line 1, column 4'],
    ['{{ .A.B }}', expect.stringContaining('unsupported expression ".A.B"') as string],
    ['{{ if .A }}', expect.stringContaining('unsupported expression "if .A"') as string],
    ['{{- .A -}}', expect.stringContaining('unsupported expression "- .A -"') as string],
    ['{{ .1st }}', expect.stringContaining('unsupported expression ".1st"') as string],
    ['{{{ .A }}}', expect.stringContaining('unsupported expression "{ .A"') as string],
  ])('refuses %j', (source, message) => {
    expect(parseTemplate(source).errors).toEqual([expect.objectContaining({ message })]);
  });

  it('gives line and column of each error in a multi-line template', () => {
    const source = ['<p>Hello</p>', '<p>{{ .A }} {{ B }}</p>', '', '\t{{ .C | x }}', '{{ '].join('\n');
    expect(parseTemplate(source).errors.map(({ line, column }) => [line, column])).toEqual([
      [2, 16],
      [4, 5],
      [5, 1],
    ]);
  });

  it('keeps messages on one line and short even for a long multi-line expression', () => {
    const [error] = parseTemplate(`{{ .A\n|\n${'x'.repeat(200)} }}`).errors;
    expect(error.message).not.toMatch(/\n/);
    expect(error.message).toContain('".A | xxxxx');
    expect(error.message.length).toBeLessThan(200);
  });
});

describe('PositionTracker', () => {
  it('turns offsets into 1-based line and column, forwards and backwards', () => {
    const positions = new PositionTracker('ab\ncd\r\nef');
    expect(positions.at(0)).toEqual({ line: 1, column: 1 });
    expect(positions.at(4)).toEqual({ line: 2, column: 2 });
    expect(positions.at(7)).toEqual({ line: 3, column: 1 });
    expect(positions.at(1)).toEqual({ line: 1, column: 2 });
  });
});
