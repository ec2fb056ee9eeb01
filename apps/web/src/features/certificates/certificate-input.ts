import { useState, type ChangeEvent } from 'react';
import * as check from '../../ui/field-checks';
import { checkedProblems, firstOf, focusFirstProblem, noProblems, splitProblems, type Problems } from '../../ui/form-problems';
import type { ActionState } from '../../ui/use-action';

/** A certificate upload's body limit (docs/api-contract.md section 1), in MiB. */
export const UPLOAD_LIMIT_MIB = 10;

/**
 * What an upload form holds: PEM text pasted or read from a file, the bytes of a DER file, or a
 * file over the limit, kept by name and size only so that it is named rather than read.
 */
export type CertificateInput =
  | { kind: 'pem'; text: string }
  | { kind: 'der'; bytes: Uint8Array; fileName: string }
  | { kind: 'too-large'; fileName: string; size: number };

/** What can be sent: PEM text or DER bytes. */
export type SendableInput = Exclude<CertificateInput, { kind: 'too-large' }>;

export const NO_INPUT: CertificateInput = { kind: 'pem', text: '' };

/** A picked file as the form holds it: PEM when its text has armour, DER otherwise. */
export async function readCertificateFile(file: File): Promise<CertificateInput> {
  if (check.withinSize(file.name, file.size, UPLOAD_LIMIT_MIB) !== null) return { kind: 'too-large', fileName: file.name, size: file.size };
  const bytes = new Uint8Array(await file.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  return text.includes('-----BEGIN') ? { kind: 'pem', text } : { kind: 'der', bytes, fileName: file.name };
}

/** DER bytes in PEM armour, for a route body that carries PEM text. */
export function derAsPem(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  const base64 = btoa(binary).replace(/.{64}/g, '$&\n');
  return `-----BEGIN CERTIFICATE-----\n${base64.trimEnd()}\n-----END CERTIFICATE-----\n`;
}

export const UPLOAD_FIELDS = ['file', 'pem'] as const;
export type UploadField = (typeof UPLOAD_FIELDS)[number];

/**
 * What the API would refuse anyway: nothing given, PEM without a certificate, a file or pasted
 * text over the limit. A DER file is the API's to read.
 */
export function certificateInputChecks(input: CertificateInput): Record<UploadField, string | null> {
  if (input.kind === 'too-large') return { file: check.withinSize(input.fileName, input.size, UPLOAD_LIMIT_MIB), pem: null };
  if (input.kind === 'der') return { file: null, pem: null };
  const pastedBytes = new TextEncoder().encode(input.text).length;
  return { file: null, pem: firstOf(check.pem(input.text), check.withinSize('The pasted text', pastedBytes, UPLOAD_LIMIT_MIB)) };
}

/**
 * The API's refusal of an upload, by field. Its sentences about the certificate ("The request has
 * no certificate…", "certificate 1: …") name no form field, so they go by the input they concern:
 * the PEM field for pasted text, the file field for a DER file. Others (a server out of reach)
 * stay above the buttons.
 */
export function uploadRefusal<F extends string>(message: string, fields: readonly F[], input: CertificateInput): Problems<F | UploadField> {
  const problems: Problems<F | UploadField> = splitProblems<F | UploadField>(message, [...UPLOAD_FIELDS, ...fields]);
  if (problems.general === null || !/certificate|PEM|DER|PKCS|block/i.test(problems.general)) return problems;
  const field: UploadField = input.kind === 'pem' ? 'pem' : 'file';
  problems.byField[field] = [problems.byField[field], problems.general].filter(Boolean).join(' ');
  problems.general = null;
  return problems;
}

/**
 * What both upload forms share: the input, its file picker, and the problems shown by field (the
 * form's own until the next submit, otherwise the API's refusal of `upload`). `checkBeforeSending`
 * shows what the form found and focuses the first field to fix, or answers the input to send.
 */
export function useCertificateInput(idPrefix: string, upload: ActionState, fields: readonly string[]) {
  const [input, setInput] = useState<CertificateInput>(NO_INPUT);
  const [checked, setChecked] = useState<Problems<string> | null>(null);
  const problems = checked ?? (upload.error ? uploadRefusal(upload.error, fields, input) : noProblems<string>());

  async function pick(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    if (file) setInput(await readCertificateFile(file));
  }

  function checkBeforeSending(): SendableInput | null {
    const found: Problems<string> | null = checkedProblems<UploadField>(certificateInputChecks(input));
    setChecked(found);
    if (found) {
      upload.clearError();
      focusFirstProblem<string>(idPrefix, found, UPLOAD_FIELDS);
      return null;
    }
    return input.kind === 'too-large' ? null : input;
  }

  return { input, setInput, problems, pick, checkBeforeSending };
}
