import { Route, Routes } from 'react-router';
import { useAuth } from '../../auth/auth-context';
import { useTitle } from '../../ui/layout';
import { CertificateDetailPage } from './certificate-detail-page';
import { CertificateListPage } from './certificate-list-page';
import './certificates.css';

/** /certificates: the searchable list, and /certificates/<fingerprint>: one certificate (certs:view). */
export function CertificatesSection() {
  const { can } = useAuth();
  if (!can('certs:view')) return <NotAllowed />;
  return (
    <Routes>
      <Route index element={<CertificateListPage />} />
      <Route path=":fingerprint" element={<CertificateDetailPage />} />
    </Routes>
  );
}

function NotAllowed() {
  useTitle('Certificates');
  return (
    <>
      <h1>Certificates</h1>
      <p role="alert">Your role may not view certificates.</p>
    </>
  );
}
