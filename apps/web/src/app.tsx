import { Route, Routes } from 'react-router';
import { AuthProvider, RequireAuth } from './auth/auth-context';
import { AuditPage } from './features/admin/audit-page';
import { UsersSection } from './features/admin/users-section';
import { OidcCallbackPage } from './features/auth/oidc-callback-page';
import { SignInPage } from './features/auth/sign-in-page';
import { CertificatesSection } from './features/certificates/certificates-section';
import { DashboardPage } from './features/dashboard/dashboard-page';
import { DiscoverySection } from './features/discovery/discovery-section';
import { BulkImportPage } from './features/endpoints/bulk-import-page';
import { EndpointCreatePage } from './features/endpoints/endpoint-create-page';
import { EndpointDetailPage } from './features/endpoints/endpoint-detail-page';
import { EndpointEditPage } from './features/endpoints/endpoint-edit-page';
import { EndpointListPage } from './features/endpoints/endpoint-list-page';
import { ExpiringPage } from './features/expiring/expiring-page';
import { ProfilePage } from './features/profile/profile-page';
import { ScannersPage } from './features/scanners/scanners-page';
import { SettingsSection } from './features/settings/settings-section';
import { Layout } from './ui/layout';

export function App() {
  return (
    <AuthProvider>
      <Routes>
        <Route path="/login" element={<SignInPage />} />
        <Route path="/login/oidc" element={<OidcCallbackPage />} />
        <Route
          element={
            <RequireAuth>
              <Layout />
            </RequireAuth>
          }
        >
          <Route index element={<DashboardPage />} />
          <Route path="expiring" element={<ExpiringPage />} />
          <Route path="endpoints" element={<EndpointListPage />} />
          <Route path="endpoints/new" element={<EndpointCreatePage />} />
          <Route path="endpoints/import" element={<BulkImportPage />} />
          <Route path="endpoints/:id" element={<EndpointDetailPage />} />
          <Route path="endpoints/:id/edit" element={<EndpointEditPage />} />
          {/* Sections with screens of their own route below their prefix (their own <Routes>). */}
          <Route path="certificates/*" element={<CertificatesSection />} />
          <Route path="discovery/*" element={<DiscoverySection />} />
          <Route path="settings/*" element={<SettingsSection />} />
          <Route path="users/*" element={<UsersSection />} />
          <Route path="audit" element={<AuditPage />} />
          <Route path="scanners" element={<ScannersPage />} />
          <Route path="profile" element={<ProfilePage />} />
          <Route path="*" element={<NotFound />} />
        </Route>
      </Routes>
    </AuthProvider>
  );
}

function NotFound() {
  return (
    <>
      <h1>Not found</h1>
      <p>There is no screen at this address.</p>
    </>
  );
}
