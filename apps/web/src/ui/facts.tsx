import type { ReactNode } from 'react';

/** One term and its value in a `<dl className="facts">`. */
export function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** A section of read-only facts under a heading (what an operator sees where an admin edits). */
export function FactsSection({ id, heading, rows }: { id: string; heading: string; rows: [string, ReactNode][] }) {
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{heading}</h2>
      <dl className="facts">
        {rows.map(([term, value]) => (
          <Fact key={term} term={term}>
            {value}
          </Fact>
        ))}
      </dl>
    </section>
  );
}
