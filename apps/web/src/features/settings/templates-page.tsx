import { useState, type FormEvent } from 'react';
import { api, type Schemas } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { LoadError, useTitle } from '../../ui/layout';
import { ConfirmAction } from '../../ui/shown-once';
import { useAction } from '../../ui/use-action';
import { useApiQuery } from '../../ui/use-api-query';
import { ChatPreview, isChatChannel } from './chat-preview';
import { EVENT_NAMES } from './event-names';
import { MailHtml } from './mail-html';
import { ReadOnlyNote } from './settings-section';

type Template = Schemas['TemplateDto'];
type Preview = Schemas['TemplatePreviewDto'];

/** The templates of the alerts, for e-mail and each chat channel: edited, previewed by the server's renderer, reset to the default. */
export function TemplatesPage() {
  useTitle('Notification templates');
  const { can } = useAuth();
  const templates = useApiQuery('notification-templates', () => api.GET('/api/v1/notification-templates'));
  return (
    <>
      <h1>Notification templates</h1>
      <p className="muted">
        Subjects and bodies use <code className="mono">{'{{ .Variable }}'}</code> placeholders. A body with HTML markup is sent as HTML with
        a text alternative; a body without markup is sent as plain text, line for line. Slack, Teams, ntfy and PagerDuty send the text.
      </p>
      {!can('settings:edit') && <ReadOnlyNote />}
      <LoadError message={templates.error} />
      {templates.data?.map((template) => (
        <TemplateEditor key={`${template.eventType}/${template.channel}`} initial={template} mayEdit={can('settings:edit')} />
      ))}
    </>
  );
}

function TemplateEditor({ initial, mayEdit }: { initial: Template; mayEdit: boolean }) {
  // What the server holds, from the load and then from each save or reset.
  const [template, setTemplate] = useState(initial);
  const id = `template-${template.eventType}-${template.channel}`;
  const path = { eventType: template.eventType, channel: template.channel };
  const [subject, setSubject] = useState(template.subject);
  const [body, setBody] = useState(template.body);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [saved, setSaved] = useState(false);
  const [confirmingReset, setConfirmingReset] = useState(false);
  const previewing = useAction();
  const save = useAction();
  const reset = useAction();
  const title = `${EVENT_NAMES[template.eventType]} (${template.channel})`;

  function edited(apply: () => void) {
    apply();
    setSaved(false);
    setPreview(null);
    previewing.clearError();
    save.clearError();
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaved(false);
    const ok = await save.run(
      () => api.PUT('/api/v1/notification-templates/{eventType}/{channel}', { params: { path }, body: { subject, body } }),
      setTemplate,
    );
    setSaved(ok);
  }

  /** Removes the override, then shows the default that applies again. */
  async function resetToDefault() {
    await reset.run(
      async () => {
        const removed = await api.DELETE('/api/v1/notification-templates/{eventType}/{channel}', { params: { path } });
        if (!removed.response.ok) return { error: removed.error, response: removed.response };
        return api.GET('/api/v1/notification-templates/{eventType}/{channel}', { params: { path } });
      },
      (restored) => {
        setTemplate(restored);
        setConfirmingReset(false);
        edited(() => {
          setSubject(restored.subject);
          setBody(restored.body);
        });
      },
    );
  }

  const showPreview = () =>
    void previewing.run(
      () => api.POST('/api/v1/notification-templates/{eventType}/{channel}/preview', { params: { path }, body: { subject, body } }),
      setPreview,
    );

  // The sentence of whichever action failed last, next to the body it is about.
  const problem = save.error ?? previewing.error;
  return (
    <section className="card" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>
        {title} <span className="muted small">{template.isCustom ? 'custom' : 'built-in default'}</span>
      </h2>
      <p>
        Variables:{' '}
        {template.variables.map((variable, index) => (
          <span key={variable}>
            {index > 0 && ', '}
            <code className="mono">{`{{ .${variable} }}`}</code>
          </span>
        ))}
      </p>
      {mayEdit ? (
        <form className="form" onSubmit={(event) => void submit(event)} noValidate>
          <label htmlFor={`${id}-subject`}>Subject</label>
          <input
            id={`${id}-subject`}
            className="mono"
            value={subject}
            autoComplete="off"
            onChange={(event) => edited(() => setSubject(event.target.value))}
          />
          <label htmlFor={`${id}-body`}>Body</label>
          <textarea
            id={`${id}-body`}
            className="template-body"
            value={body}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? `${id}-error` : undefined}
            onChange={(event) => edited(() => setBody(event.target.value))}
          />
          {problem && (
            <p className="error field-error pre" id={`${id}-error`} role="alert">
              {problem}
            </p>
          )}
          <div className="actions">
            <button type="button" disabled={previewing.busy} onClick={showPreview}>
              Preview
            </button>
            <button type="submit" className="primary" disabled={save.busy}>
              Save template
            </button>
            {template.isCustom && (
              <ConfirmAction
                label="Reset to default"
                accessibleLabel={`Reset to default: ${title}`}
                question="Replace this template by the built-in default?"
                confirmLabel="Yes, reset to the default"
                confirming={confirmingReset}
                busy={reset.busy}
                onAsk={() => setConfirmingReset(true)}
                onCancel={() => setConfirmingReset(false)}
                onConfirm={() => void resetToDefault()}
              />
            )}
            <span role="status">{saved ? 'Saved.' : ''}</span>
          </div>
          <LoadError message={reset.error} />
        </form>
      ) : (
        <>
          <h3>Subject</h3>
          <pre className="stored mono">{template.subject}</pre>
          <h3>Body</h3>
          <pre className="stored mono">{template.body}</pre>
          <div className="actions">
            <button type="button" disabled={previewing.busy} onClick={showPreview}>
              Preview
            </button>
          </div>
          <LoadError message={previewing.error} />
        </>
      )}
      {preview && <TemplatePreview id={id} channel={template.channel} preview={preview} />}
    </section>
  );
}

/**
 * The message as an alert would carry it, with sample values: on a chat channel first as that
 * channel shows it, then the rendered subject and text; the HTML part in a sandbox (no script, no
 * navigation).
 */
function TemplatePreview({ id, channel, preview }: { id: string; channel: string; preview: Preview }) {
  return (
    <div className="template-preview" role="region" aria-labelledby={`${id}-preview-heading`}>
      <h3 id={`${id}-preview-heading`}>Preview with sample values</h3>
      {preview.chat && isChatChannel(channel) && <ChatPreview id={id} channel={channel} chat={preview.chat} />}
      <dl className="facts">
        <div>
          <dt>Subject</dt>
          <dd data-testid={`${id}-preview-subject`}>{preview.subject}</dd>
        </div>
      </dl>
      {preview.html !== null && (
        <>
          <h4>HTML part</h4>
          <MailHtml html={preview.html} label="HTML part of the preview" />
        </>
      )}
      <h4>{preview.html !== null ? 'Text alternative' : 'Text (sent as plain text)'}</h4>
      <pre data-testid={`${id}-preview-text`}>{preview.text}</pre>
    </div>
  );
}
