import { Link, Navigate, useNavigate, useParams } from 'react-router';
import { api } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { LoadError, useTitle } from '../../ui/layout';
import { useApiQuery } from '../../ui/use-api-query';
import { EndpointForm, refusalOf, valuesOf } from './endpoint-form';

/** PUT /api/v1/endpoints/{id}: every writable field of the endpoint replaced by the form's (endpoints:edit). */
export function EndpointEditPage() {
  const { id = '' } = useParams();
  const { can } = useAuth();
  const navigate = useNavigate();
  const mayEdit = can('endpoints:edit');
  const endpoint = useApiQuery(`endpoint:${id}:${String(mayEdit)}`, () => api.GET('/api/v1/endpoints/{id}', { params: { path: { id } } }));
  useTitle(endpoint.data ? `Edit ${endpoint.data.name}` : 'Edit endpoint');
  if (!mayEdit) return <Navigate to={`/endpoints/${id}`} replace />;

  const detail = `/endpoints/${id}`;
  return (
    <>
      <p>
        <Link to={detail}>← {endpoint.data?.name ?? 'Endpoint'}</Link>
      </p>
      <h1>{endpoint.data ? `Edit ${endpoint.data.name}` : 'Edit endpoint'}</h1>
      <LoadError message={endpoint.error} />
      {!endpoint.data && endpoint.loading && <p role="status">Loading…</p>}
      {endpoint.data && (
        <EndpointForm
          key={endpoint.data.updatedAt}
          initial={valuesOf(endpoint.data)}
          typeFixed
          submitLabel="Save endpoint"
          busyLabel="Saving…"
          cancelTo={detail}
          onSubmit={async (body) => {
            const { data, error, response } = await api.PUT('/api/v1/endpoints/{id}', { params: { path: { id } }, body });
            if (!data) return refusalOf(error, response, body, id);
            await navigate(detail);
            return null;
          }}
        />
      )}
    </>
  );
}
