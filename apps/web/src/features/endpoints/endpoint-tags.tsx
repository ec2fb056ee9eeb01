import { useState, type FormEvent } from 'react';
import { api, type Schemas } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { tags as tagProblem } from '../../ui/field-checks';
import { useAction } from '../../ui/use-action';
import { useApiQuery } from '../../ui/use-api-query';
import { LoadError } from '../../ui/layout';

/**
 * The endpoint's tags; with endpoints:edit they are edited here and saved at once with
 * PUT /endpoints/{id}/tags, the tags in use (GET /tags) offered as suggestions.
 */
export function EndpointTags({ endpointId, tags, onSaved }: { endpointId: string; tags: string[]; onSaved: () => void }) {
  const { can } = useAuth();
  return (
    <section aria-labelledby="tags-heading">
      <h2 id="tags-heading">Tags</h2>
      {can('endpoints:edit') ? (
        <TagEditor endpointId={endpointId} tags={tags} onSaved={onSaved} />
      ) : tags.length === 0 ? (
        <p className="muted">No tags.</p>
      ) : (
        <ul className="tag-list" aria-label="Tags of this endpoint">
          {tags.map((tag) => (
            <li key={tag} className="tag mono">
              {tag}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function TagEditor({ endpointId, tags, onSaved }: { endpointId: string; tags: string[]; onSaved: () => void }) {
  const { can } = useAuth();
  const mayReadTags = can('tags:view');
  const known = useApiQuery(`tags:${String(mayReadTags)}`, () =>
    mayReadTags ? api.GET('/api/v1/tags') : Promise.resolve({ data: [] as Schemas['TagSummaryDto'][], response: new Response() }),
  );
  const [adding, setAdding] = useState('');
  const [saved, setSaved] = useState<string | null>(null);
  const action = useAction();
  // The form's own check of the tag typed, until the next add; otherwise the API's refusal.
  const [checked, setChecked] = useState<string | null>(null);
  const problem = checked ?? action.error;

  async function save(next: string[], done: string): Promise<boolean> {
    setSaved(null);
    setChecked(null);
    return action.run(
      () => api.PUT('/api/v1/endpoints/{id}/tags', { params: { path: { id: endpointId } }, body: next }),
      () => {
        setSaved(done);
        onSaved();
      },
    );
  }

  function add(event: FormEvent) {
    event.preventDefault();
    const tag = adding.trim();
    if (tag === '') return;
    const found = tagProblem([tag]);
    if (found) {
      action.clearError();
      setChecked(found);
      return;
    }
    if (tags.includes(tag)) {
      setSaved(`${tag} is already a tag of this endpoint.`);
      setAdding('');
      return;
    }
    // What was typed stays when the API refuses it, to be corrected.
    void save([...tags, tag], `Tag ${tag} added.`).then((added) => added && setAdding(''));
  }

  return (
    <>
      {tags.length === 0 ? (
        <p className="muted">No tags.</p>
      ) : (
        <ul className="tag-list" aria-label="Tags of this endpoint">
          {tags.map((tag) => (
            <li key={tag} className="tag">
              <span className="mono">{tag}</span>{' '}
              <button
                type="button"
                aria-label={`Remove tag ${tag}`}
                disabled={action.busy}
                onClick={() =>
                  void save(
                    tags.filter((other) => other !== tag),
                    `Tag ${tag} removed.`,
                  )
                }
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <form className="actions" onSubmit={add}>
        <label htmlFor="endpoint-tag-add">Tag to add</label>
        <input
          id="endpoint-tag-add"
          list="endpoint-known-tags"
          placeholder="env:prod"
          autoComplete="off"
          value={adding}
          onChange={(event) => setAdding(event.target.value)}
        />
        <datalist id="endpoint-known-tags">
          {(known.data ?? [])
            .filter((tag) => !tags.includes(tag.tag))
            .map((tag) => (
              <option key={tag.tag} value={tag.tag}>
                {`${tag.endpointCount} endpoint${tag.endpointCount === 1 ? '' : 's'}`}
              </option>
            ))}
        </datalist>
        <button type="submit" disabled={action.busy}>
          Add tag
        </button>
        <span role="status">{saved}</span>
      </form>
      <LoadError message={problem} />
    </>
  );
}
