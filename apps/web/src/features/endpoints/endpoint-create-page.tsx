import { Link, Navigate, useNavigate } from 'react-router';
import { api } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { useTitle } from '../../ui/layout';
import { EndpointForm, NEW_ENDPOINT, refusalOf } from './endpoint-form';

/** POST /api/v1/endpoints: a host, SAML or manual endpoint (endpoints:edit). */
export function EndpointCreatePage() {
  useTitle('Add endpoint');
  const { can } = useAuth();
  const navigate = useNavigate();
  if (!can('endpoints:edit')) return <Navigate to="/endpoints" replace />;

  return (
    <>
      <p>
        <Link to="/endpoints">← Endpoints</Link>
      </p>
      <h1>Add endpoint</h1>
      <EndpointForm
        initial={NEW_ENDPOINT}
        typeFixed={false}
        submitLabel="Add endpoint"
        busyLabel="Adding…"
        cancelTo="/endpoints"
        onSubmit={async (body) => {
          const { data, error, response } = await api.POST('/api/v1/endpoints', { body });
          if (!data) return refusalOf(error, response, body);
          await navigate(`/endpoints/${data.id}`);
          return null;
        }}
      />
    </>
  );
}
