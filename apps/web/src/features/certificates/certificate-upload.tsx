import { useState, type ChangeEvent, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, type Schemas } from '../../api/client';
import { pem as pemProblem } from '../../ui/field-checks';
import { useAction } from '../../ui/use-action';

/** A file's text when it is PEM; a DER file (binary) wrapped in PEM armour so that the same JSON body carries it. */
async function fileAsPem(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  if (text.includes('-----BEGIN')) return text;
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  const base64 = btoa(binary).replace(/.{64}/g, '$&\n');
  return `-----BEGIN CERTIFICATE-----\n${base64.trimEnd()}\n-----END CERTIFICATE-----\n`;
}

/**
 * POST /api/v1/certificates (certs:edit): stores certificates without linking them to an endpoint,
 * for example the intermediate or root a chain needs. Pasted PEM or a PEM/DER file.
 */
export function CertificateUpload() {
  const [pem, setPem] = useState('');
  const [stored, setStored] = useState<{ certificate: Schemas['CertificateDetailDto']; isNew: boolean } | null>(null);
  const upload = useAction();
  // The form's own check (not PEM at all) until the next submit; otherwise the API's refusal.
  const [checked, setChecked] = useState<string | null>(null);
  const problem = checked ?? upload.error;

  async function pick(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    if (file) setPem(await fileAsPem(file));
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setStored(null);
    const found = pemProblem(pem);
    setChecked(found);
    if (found) {
      upload.clearError();
      document.getElementById('upload-pem')?.focus();
      return;
    }
    await upload.run(
      async () => {
        const result = await api.POST('/api/v1/certificates', { body: { pem } });
        return { ...result, data: result.data ? { certificate: result.data, isNew: result.response.status === 201 } : undefined };
      },
      (answer) => {
        setStored(answer);
        setPem('');
      },
    );
  }

  return (
    <form className="card form certificate-upload" aria-labelledby="upload-heading" onSubmit={(event) => void submit(event)} noValidate>
      <h2 id="upload-heading">Upload certificates</h2>
      <p className="muted">
        Stores certificates without tying them to an endpoint (an intermediate or root that completes a chain, for instance). A PEM bundle
        stores every certificate in it; the first is the one shown.
      </p>
      <label htmlFor="upload-file">Certificate file (PEM or DER)</label>
      <input id="upload-file" type="file" accept=".pem,.crt,.cer,.der" onChange={(event) => void pick(event)} />
      <label htmlFor="upload-pem">PEM</label>
      <textarea
        id="upload-pem"
        className="mono"
        value={pem}
        aria-describedby={problem ? 'upload-error' : undefined}
        aria-invalid={problem ? true : undefined}
        onChange={(event) => setPem(event.target.value)}
        placeholder="-----BEGIN CERTIFICATE-----"
      />
      {problem && (
        <p className="error field-error" id="upload-error" role="alert">
          {problem}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={upload.busy}>
          Upload
        </button>
        <span role="status">
          {stored && (
            <>
              {stored.isNew ? 'Stored' : 'Already stored'}:{' '}
              <Link to={`/certificates/${stored.certificate.fingerprint}`}>
                {stored.certificate.commonName ?? stored.certificate.fingerprint}
              </Link>
            </>
          )}
        </span>
      </div>
    </form>
  );
}
