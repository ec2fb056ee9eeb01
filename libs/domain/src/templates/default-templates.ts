// The built-in templates: what every installation sends until someone saves an override, and
// the fallback when an override fails. The body is what the API shows an author who opens the
// template, so it is generated here as readable, indented HTML with inline CSS only (mail
// clients drop <style> blocks and must not fetch anything).
import type { EventType, TemplateChannel, TemplateValues } from './event-types';
import { htmlToText } from './html-to-text';
import { ownValue, renderWith, type RenderedMessage } from './render-template';

interface EmailContent {
  accent: string;
  headingColor: string;
  heading: string;
  /** HTML: may contain variables and inline markup. */
  summary: string;
  rows: readonly DetailRow[];
}

interface DetailRow {
  /** Ends in a colon so the text alternative reads `Label: value`. */
  label: string;
  variable: string;
  valueStyle?: string;
}

const FONT_STACK = "-apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif";
const MONOSPACE_STACK = 'Menlo, Consolas, monospace';
const MUTED = '#6b7280';
const RULE = '#f3f4f6';

/** The certificate's name and where it is used: every event's message says them alike. */
const CERTIFICATE_IN_USE_ROWS: readonly DetailRow[] = [
  { label: 'Common name:', variable: 'CommonName' },
  { label: 'Used by:', variable: 'EndpointName' },
  { label: 'Endpoint type:', variable: 'EndpointType' },
];

// The card's accent and heading colours: amber asks for action, red says something already broke.
const WARNING = { accent: '#d97706', headingColor: '#92400e' };
const DANGER = { accent: '#dc2626', headingColor: '#991b1b' };

const FINGERPRINT_ROW: DetailRow = {
  label: 'Fingerprint:',
  variable: 'Fingerprint',
  // A SHA-256 fingerprint is 95 characters with colons: let it wrap on a phone.
  valueStyle: `font-family: ${MONOSPACE_STACK}; font-size: 12px; word-break: break-all;`,
};

export const DEFAULT_TEMPLATES: Record<EventType, { subject: string; body: string }> = Object.freeze({
  cert_expiring: {
    subject: 'Certificate for {{ .CommonName }} expires in {{ .DaysRemaining }} days',
    body: emailBody({
      ...WARNING,
      heading: 'Certificate expiring soon',
      summary:
        'The certificate for <strong>{{ .CommonName }}</strong> expires on <strong>{{ .NotAfter }}</strong>. ' +
        'Renew it and deploy the new certificate before then.',
      rows: [
        { label: 'Days remaining:', variable: 'DaysRemaining', valueStyle: 'font-weight: bold;' },
        { label: 'Expires on:', variable: 'NotAfter' },
        ...CERTIFICATE_IN_USE_ROWS,
        FINGERPRINT_ROW,
      ],
    }),
  },
  cert_expired: {
    subject: 'Certificate for {{ .CommonName }} has expired',
    body: emailBody({
      ...DANGER,
      heading: 'Certificate expired',
      summary:
        'The certificate for <strong>{{ .CommonName }}</strong> expired on <strong>{{ .NotAfter }}</strong>. ' +
        'Connections and sign-ins that rely on it may fail until it is replaced.',
      rows: [{ label: 'Expired on:', variable: 'NotAfter', valueStyle: 'font-weight: bold;' }, ...CERTIFICATE_IN_USE_ROWS, FINGERPRINT_ROW],
    }),
  },
  renewal_overdue: {
    subject: 'Certificate for {{ .CommonName }} is overdue for renewal: its CA asked for it by {{ .WindowEnd }}',
    body: emailBody({
      accent: '#7c3aed',
      headingColor: '#5b21b6',
      heading: 'Renewal overdue',
      summary:
        'The CA of the certificate for <strong>{{ .CommonName }}</strong> suggested renewing it by <strong>{{ .WindowEnd }}</strong>, ' +
        'and that time has passed. It expires on <strong>{{ .NotAfter }}</strong>, but the CA may revoke it sooner: renew it now.',
      rows: [
        { label: 'Renew by:', variable: 'WindowEnd', valueStyle: 'font-weight: bold;' },
        { label: 'Suggested from:', variable: 'WindowStart' },
        { label: 'Why:', variable: 'ExplanationURL', valueStyle: 'word-break: break-all;' },
        { label: 'Expires on:', variable: 'NotAfter' },
        { label: 'Days remaining:', variable: 'DaysRemaining' },
        ...CERTIFICATE_IN_USE_ROWS,
        FINGERPRINT_ROW,
      ],
    }),
  },
  // docs/api-contract.md section 18.
  cert_revoked: {
    subject: 'Certificate for {{ .CommonName }} has been revoked',
    body: emailBody({
      ...DANGER,
      heading: 'Certificate revoked',
      summary:
        'The issuer of the certificate for <strong>{{ .CommonName }}</strong> revoked it on <strong>{{ .RevokedAt }}</strong>. ' +
        'Clients that check revocation reject it: replace it with a newly issued certificate.',
      rows: [
        { label: 'Revoked on:', variable: 'RevokedAt', valueStyle: 'font-weight: bold;' },
        { label: 'Reason:', variable: 'Reason' },
        { label: 'Expires on:', variable: 'NotAfter' },
        ...CERTIFICATE_IN_USE_ROWS,
        FINGERPRINT_ROW,
      ],
    }),
  },
  // docs/api-contract.md section 16.
  rotation_regression: {
    subject: 'Certificate for {{ .CommonName }} was replaced by a weaker one',
    body: emailBody({
      ...WARNING,
      heading: 'Renewal made things worse',
      summary:
        'The certificate now served for <strong>{{ .CommonName }}</strong> is worse than the one it replaced: ' +
        '<strong>{{ .Regressions }}</strong>. Check the renewal and deploy a corrected certificate.',
      rows: [
        { label: 'Regressions:', variable: 'Regressions', valueStyle: 'font-weight: bold;' },
        ...CERTIFICATE_IN_USE_ROWS,
        { label: 'Expires on:', variable: 'NotAfter' },
        { label: 'Days remaining:', variable: 'DaysRemaining' },
        FINGERPRINT_ROW,
        { ...FINGERPRINT_ROW, label: 'Replaced:', variable: 'PreviousFingerprint' },
      ],
    }),
  },
  renewal_not_deployed: {
    subject: 'Certificate for {{ .CommonName }} was renewed but the renewal is not deployed',
    body: emailBody({
      ...WARNING,
      heading: 'Renewal not deployed',
      summary:
        'A renewed certificate for <strong>{{ .CommonName }}</strong> was issued on <strong>{{ .NewNotBefore }}</strong>, ' +
        'but the endpoints still serve the old one, which expires on <strong>{{ .NotAfter }}</strong>. Deploy the renewal.',
      rows: [
        { label: 'Days remaining:', variable: 'DaysRemaining', valueStyle: 'font-weight: bold;' },
        ...CERTIFICATE_IN_USE_ROWS,
        { label: 'Renewal issued:', variable: 'NewNotBefore' },
        FINGERPRINT_ROW,
        { ...FINGERPRINT_ROW, label: 'Renewal:', variable: 'NewFingerprint' },
      ],
    }),
  },
});

const chatDefaults = new Map<EventType, { subject: string; body: string }>();

/**
 * The built-in template of an event on a channel. The chat channels (slack, teams, ntfy and
 * pagerduty, docs/api-contract.md section 17) carry the e-mail default's subject and its text
 * alternative as a plain-text body: every event type has its chat defaults, with the same
 * variables, as soon as it has its e-mail one.
 */
export function defaultTemplate(eventType: EventType, channel: TemplateChannel): { subject: string; body: string } {
  const email = DEFAULT_TEMPLATES[eventType];
  if (channel === 'email') return email;
  let chat = chatDefaults.get(eventType);
  if (!chat) {
    chat = Object.freeze({ subject: email.subject, body: htmlToText(email.body) });
    chatDefaults.set(eventType, chat);
  }
  return chat;
}

/**
 * The fallback when a saved template fails at send time: the default as plain text only. Never
 * throws for any values; a missing one renders as empty rather than losing the alert.
 */
export function renderDefaultAsPlainText(eventType: EventType, values: TemplateValues): RenderedMessage {
  const { subject, html } = renderWith(DEFAULT_TEMPLATES[eventType], (variable) => ownValue(values, variable.name) ?? '');
  return { subject, html: null, text: htmlToText(html ?? '') };
}

function emailBody(content: EmailContent): string {
  const card = [
    'max-width: 560px; margin: 0 auto; padding: 24px;',
    `background-color: #ffffff; border: 1px solid #e5e7eb; border-top: 4px solid ${content.accent}; border-radius: 6px;`,
    `font-family: ${FONT_STACK}; font-size: 15px; line-height: 1.5; color: #1f2937;`,
  ].join(' ');
  return [
    `<div style="margin: 0; padding: 24px 12px; background-color: #f3f4f6;">`,
    `  <div style="${card}">`,
    `    <h1 style="margin: 0 0 12px; font-size: 20px; line-height: 1.3; color: ${content.headingColor};">${content.heading}</h1>`,
    `    <p style="margin: 0 0 20px;">${content.summary}</p>`,
    `    <table role="presentation" cellpadding="0" cellspacing="0" style="width: 100%; border-collapse: collapse; font-size: 14px;">`,
    ...content.rows.map(detailRow),
    `    </table>`,
    `    <p style="margin: 20px 0 0; font-size: 12px; color: ${MUTED};">Sent by Certkeeper.</p>`,
    `  </div>`,
    `</div>`,
    '',
  ].join('\n');
}

function detailRow(row: DetailRow): string {
  const cell = `padding: 6px 0; border-top: 1px solid ${RULE}; vertical-align: top;`;
  return [
    `      <tr>`,
    `        <td style="${cell} padding-right: 16px; color: ${MUTED}; white-space: nowrap;">${row.label}</td>`,
    `        <td style="${cell}${row.valueStyle ? ` ${row.valueStyle}` : ''}">{{ .${row.variable} }}</td>`,
    `      </tr>`,
  ].join('\n');
}
