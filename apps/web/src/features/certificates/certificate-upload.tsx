import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, type Schemas } from '../../api/client';
import { FieldError, fieldProps, GeneralProblem } from '../../ui/form-problems';
import { useAction } from '../../ui/use-action';
import { derAsPem, NO_INPUT, UPLOAD_FIELDS, UPLOAD_LIMIT_MIB, useCertificateInput } from './certificate-input';

const ID = 'upload';

/**
 * POST /api/v1/certificates (certs:edit): stores certificates without linking them to an endpoint,
 * for example the intermediate or root a chain needs. Pasted PEM or a PEM/DER file, a DER file
 * sent in PEM armour so that the same JSON body carries it.
 */
export function CertificateUpload() {
  const [stored, setStored] = useState<{ certificate: Schemas['CertificateDetailDto']; isNew: boolean } | null>(null);
  const upload = useAction();
  const { input, setInput, problems, pick, checkBeforeSending } = useCertificateInput(ID, upload, UPLOAD_FIELDS);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setStored(null);
    const sendable = checkBeforeSending();
    if (!sendable) return;
    const pem = sendable.kind === 'pem' ? sendable.text : derAsPem(sendable.bytes);
    await upload.run(
      async () => {
        const result = await api.POST('/api/v1/certificates', { body: { pem } });
        return { ...result, data: result.data ? { certificate: result.data, isNew: result.response.status === 201 } : undefined };
      },
      (answer) => {
        setStored(answer);
        setInput(NO_INPUT);
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
      <label htmlFor={`${ID}-file`}>Certificate file (PEM or DER, at most {UPLOAD_LIMIT_MIB} MiB)</label>
      <input {...fieldProps(ID, 'file', problems)} type="file" accept=".pem,.crt,.cer,.der" onChange={(event) => void pick(event)} />
      {input.kind === 'der' && <p className="muted">{input.fileName}: binary (DER), sent in PEM armour.</p>}
      <FieldError idPrefix={ID} field="file" problems={problems} />
      <label htmlFor={`${ID}-pem`}>PEM</label>
      <textarea
        {...fieldProps(ID, 'pem', problems)}
        className="mono"
        value={input.kind === 'pem' ? input.text : ''}
        onChange={(event) => setInput({ kind: 'pem', text: event.target.value })}
        placeholder="-----BEGIN CERTIFICATE-----"
      />
      <FieldError idPrefix={ID} field="pem" problems={problems} />
      <GeneralProblem problems={problems} />
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
