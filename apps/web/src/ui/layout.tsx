import { useEffect, useRef, useState } from 'react';
import { NavLink, Outlet, useLocation } from 'react-router';
import { useAuth } from '../auth/auth-context';
import { HeaderSearch } from '../features/search/header-search';
import { ThresholdsProvider } from './thresholds';

/** Header with what the role may see, the signed-in person and sign-out; the screen below. */
export function Layout() {
  const { me, session, can, signOut } = useAuth();
  const user = me ?? session?.user;
  // On a move to another screen, focus goes to the content (as a page load would put it at the
  // top), so keyboard and screen-reader users start there; filter changes keep focus where it is.
  const { pathname } = useLocation();
  const firstRender = useRef(true);
  // Below the breakpoint the navigation folds behind the menu button; a move to another screen folds it again.
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => {
    setMenuOpen(false);
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    document.getElementById('main')?.focus();
  }, [pathname]);
  return (
    <ThresholdsProvider>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className={menuOpen ? 'app-header open' : 'app-header'}>
        <span className="brand">Certkeeper</span>
        <HeaderSearch />
        <button
          type="button"
          className="menu-button"
          aria-expanded={menuOpen}
          aria-controls="main-menu"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <div className="menu" id="main-menu">
          <nav aria-label="Main">
            <ul>
              {can('endpoints:view') && can('certs:view') && (
                <li>
                  <NavLink to="/" end>
                    Dashboard
                  </NavLink>
                </li>
              )}
              {can('certs:view') && (
                <li>
                  <NavLink to="/expiring">Expiring</NavLink>
                </li>
              )}
              {can('endpoints:view') && (
                <li>
                  <NavLink to="/endpoints">Endpoints</NavLink>
                </li>
              )}
              {can('certs:view') && (
                <li>
                  <NavLink to="/certificates">Certificates</NavLink>
                </li>
              )}
              {can('discovery:view') && (
                <li>
                  <NavLink to="/discovery">Discovery</NavLink>
                </li>
              )}
              {can('scanners:view') && (
                <li>
                  <NavLink to="/scanners">Scanners</NavLink>
                </li>
              )}
              {can('settings:view') && (
                <li>
                  <NavLink to="/settings">Settings</NavLink>
                </li>
              )}
              {can('users:view') && (
                <li>
                  <NavLink to="/users">Users</NavLink>
                </li>
              )}
              {can('audit:view') && (
                <li>
                  <NavLink to="/audit">Audit</NavLink>
                </li>
              )}
              {can('self:access') && (
                <li>
                  <NavLink to="/profile">Profile</NavLink>
                </li>
              )}
            </ul>
          </nav>
          <div className="user">
            {user && (
              <span>
                {user.name || user.email} <span className="role">({user.role})</span>
              </span>
            )}
            <button type="button" onClick={() => void signOut()}>
              Sign out
            </button>
          </div>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </ThresholdsProvider>
  );
}

/** Sets the document title of a screen (what a screen reader announces on navigation). */
export function useTitle(title: string): void {
  if (document.title !== `${title} · Certkeeper`) document.title = `${title} · Certkeeper`;
}

/** A failed load or action in the API's own words (nothing when there is none). */
export function LoadError({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <p className="error" role="alert">
      {message}
    </p>
  );
}
